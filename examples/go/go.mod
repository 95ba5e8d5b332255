module snodo.example/snodo

// Standard library only: nothing here is ever fetched from the network.
go 1.19
