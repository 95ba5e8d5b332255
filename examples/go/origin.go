// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

// The Streamable HTTP edge check of Origin and Host against web pages
// (snodo_origin_policy, snodo_check_http_origin).

/*
#include <stdlib.h>
#include <snodo.h>
*/
import "C"

import (
	"encoding/json"
	"runtime"
)

// OriginPolicy is which Host and Origin values a server accepts. Immutable
// and safe to share across goroutines; build one at start-up.
type OriginPolicy struct{ p *C.snodo_origin_policy }

func wrapPolicy(p *C.snodo_origin_policy) *OriginPolicy {
	o := &OriginPolicy{p: p}
	runtime.SetFinalizer(o, (*OriginPolicy).Close)
	return o
}

// LoopbackOriginPolicy is the policy of a server bound to loopback: the
// hosts localhost, 127.0.0.1 and [::1] on any port, and no Origin but the
// request's own.
func LoopbackOriginPolicy() (*OriginPolicy, error) {
	var p *C.snodo_origin_policy
	if err := call(func() C.snodo_status { return C.snodo_origin_policy_loopback(&p) }); err != nil {
		return nil, err
	}
	return wrapPolicy(p), nil
}

// NewOriginPolicy is a policy from lists: hosts entries are "name" (any
// port), "name:port" or "*"; origins entries are "scheme://host[:port]"
// or "*". A bad entry is an *Error with StatusConfig. Loopback is not
// implied; a request's own origin always is.
func NewOriginPolicy(hosts, origins []string) (*OriginPolicy, error) {
	// nil marshals as null, which libsnodo refuses: an absent list is empty.
	if hosts == nil {
		hosts = []string{}
	}
	if origins == nil {
		origins = []string{}
	}
	hb, err := json.Marshal(hosts)
	if err != nil {
		return nil, err
	}
	ob, err := json.Marshal(origins)
	if err != nil {
		return nil, err
	}
	var p *C.snodo_origin_policy
	err = call(func() C.snodo_status {
		hp, hl := bytesIn(hb)
		op, ol := bytesIn(ob)
		return C.snodo_origin_policy_new(hp, hl, op, ol, &p)
	})
	if err != nil {
		return nil, err
	}
	return wrapPolicy(p), nil
}

// Close frees the policy once no goroutine uses it; later calls do nothing.
func (o *OriginPolicy) Close() {
	if o != nil && o.p != nil {
		C.snodo_origin_policy_free(o.p)
		o.p = nil
		runtime.SetFinalizer(o, nil)
	}
}

// CheckHTTPOrigin checks Origin and Host of one HTTP request (every
// occurrence of a header its own entry) against the policy, on every
// request before reading the body. A nil Response means go on; otherwise
// send it as is (HTTP 421 for Host, 403 for Origin).
func CheckHTTPOrigin(o *OriginPolicy, headers []Header) (*Response, error) {
	if o == nil || o.p == nil {
		return nil, errClosed
	}
	arr, free, err := cHeaders(headers)
	defer free()
	if err != nil {
		return nil, err
	}
	var rp *C.snodo_response
	err = call(func() C.snodo_status {
		return C.snodo_check_http_origin(o.p, arr, C.size_t(len(headers)), &rp)
	})
	runtime.KeepAlive(o)
	if err != nil {
		return nil, err
	}
	return wrapResponse(rp), nil
}
