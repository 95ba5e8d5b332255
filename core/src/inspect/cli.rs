//! The `snodo-mrtr` command line, parsed and run here so that the Python
//! console script and the Node `bin` accept the same arguments and print the
//! same bytes (help and errors included). The wrappers only pass `argv`,
//! `SNODO_KEYS`, the clock and a file reader, then print what comes back.

use super::{InspectOptions, default_key_id, inspect_token, keygen};
use crate::{Principal, parse_keys};

/// The command's name in both packages.
const NAME: &str = "snodo-mrtr";

/// What the command prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliOutput {
    /// Text for standard output.
    pub stdout: String,
    /// Text for standard error.
    pub stderr: String,
    /// The exit status: 0 ok, 1 token refused or undecodable, 2 usage or
    /// configuration error.
    pub exit_code: i32,
}

fn out(stdout: String) -> CliOutput {
    CliOutput { stdout, stderr: String::new(), exit_code: 0 }
}

fn usage_error(message: &str, help: &str) -> CliOutput {
    CliOutput {
        stdout: String::new(),
        stderr: format!("{NAME}: {message}\nTry '{NAME} {help}--help'.\n"),
        exit_code: 2,
    }
}

fn help_main() -> String {
    format!(
        "{NAME}: inspect snodo continuation tokens (requestState) and make keys.

Usage:
  {NAME} keygen [--id ID]
  {NAME} inspect [options] TOKEN
  {NAME} --help | --version

Commands:
  keygen    print a fresh key for SNODO_KEYS
  inspect   print a token's fields; with SNODO_KEYS set, verify it

'{NAME} COMMAND --help' tells more. Key bytes are never printed.
"
    )
}

fn help_keygen() -> String {
    format!(
        "Usage: {NAME} keygen [--id ID]

Prints a fresh key in the SNODO_KEYS form, id:base64 (32 random bytes from
the operating system, standard base64). The id defaults to today's UTC date,
YYYY-MM-DD; ids are 1 to 32 characters of A-Z a-z 0-9 _ -.

To rotate: put the new key first in SNODO_KEYS (it signs), keep the old one
after it (it still verifies) until the old tokens have expired.
"
    )
}

fn help_inspect() -> String {
    format!(
        "Usage: {NAME} inspect [options] TOKEN

Prints the token's readable fields (version, key id, token and flow ids,
issued and expiry times in UTC, flow start, round, question keys, state)
without a key. With
SNODO_KEYS set (id:hex-or-base64, comma-separated, as the server reads it),
verifies the token with the server's checks and names the first that fails,
by the reason the server sends as data.reason: malformed, version, key,
signature, expired, not_yet_valid, flow_age, rounds, principal, request, size.

Options:
  --principal NAME       the verified principal the retry came with
  --anonymous            the retry came from the anonymous principal
  --request FILE         a file with the retry's JSON-RPC request (binding)
  --audience NAME        the server's audience, if it has one
  --now SECS             check at this Unix time instead of now
  --max-rounds N         the server's limits, when not the defaults
  --max-flow-age SECS
  --max-token-bytes N
  --clock-skew SECS

Without --principal/--anonymous the principal check is not made, without
--request the request check; each line says which input it lacked. A
replay (data.reason replayed) is judged by the server's once store, never
here: the replay line names the flow's record to look up.
Exit status: 0 ok (or decoded, without keys), 1 refused, 2 usage.
"
    )
}

/// Runs the command line `args` (without the program name). `keys` is the
/// value of `SNODO_KEYS` (`None` or blank: decode only), `now` the clock in
/// Unix seconds, and `read_file` reads `--request`'s file as text.
pub fn run_cli(
    args: &[String],
    keys: Option<&str>,
    now: u64,
    read_file: &dyn Fn(&str) -> std::result::Result<String, String>,
) -> CliOutput {
    let Some(command) = args.first() else {
        return usage_error("a command is required (keygen or inspect)", "");
    };
    let rest = args.get(1..).unwrap_or_default();
    match command.as_str() {
        "-h" | "--help" | "help" => out(help_main()),
        "-V" | "--version" => out(format!("{NAME} {}\n", crate::VERSION)),
        "keygen" => run_keygen(rest, now),
        "inspect" => run_inspect(rest, keys, now, read_file),
        other => usage_error(&format!("unknown command {other:?}"), ""),
    }
}

/// Splits `--name=value` / `--name value` pairs; `None` when the value is
/// missing.
fn take_value<'a>(arg: &'a str, it: &mut impl Iterator<Item = &'a String>) -> (String, Option<String>) {
    match arg.split_once('=') {
        Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
        _ => (arg.to_owned(), it.next().cloned()),
    }
}

fn run_keygen(args: &[String], now: u64) -> CliOutput {
    let mut id = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-h" || arg == "--help" {
            return out(help_keygen());
        }
        let (name, value) = take_value(arg, &mut it);
        match (name.as_str(), value) {
            ("--id", Some(v)) => id = Some(v),
            ("--id", None) => return usage_error("--id needs a value", "keygen "),
            _ => return usage_error(&format!("unexpected argument {arg:?}"), "keygen "),
        }
    }
    let id = id.unwrap_or_else(|| default_key_id(now));
    match keygen(&id) {
        Ok(line) => out(format!("{line}\n")),
        Err(e) => {
            CliOutput { stdout: String::new(), stderr: format!("{NAME}: {}\n", e.message()), exit_code: 2 }
        }
    }
}

fn number<T: std::str::FromStr>(name: &str, value: &str) -> std::result::Result<T, CliOutput> {
    value
        .parse()
        .map_err(|_| usage_error(&format!("{name}: {value:?} is not a non-negative integer"), "inspect "))
}

fn run_inspect(
    args: &[String],
    keys: Option<&str>,
    now: u64,
    read_file: &dyn Fn(&str) -> std::result::Result<String, String>,
) -> CliOutput {
    match parse_inspect(args, now, read_file) {
        Ok(Parsed::Help) => out(help_inspect()),
        Ok(Parsed::Run { token, options, now }) => {
            let ring = match keys.map(str::trim).filter(|k| !k.is_empty()).map(parse_keys) {
                None => None,
                Some(Ok(ring)) => Some(ring),
                Some(Err(e)) => return config_error(e.message()),
            };
            match inspect_token(&token, ring.as_deref(), now, &options) {
                Ok(report) => CliOutput {
                    stdout: report.to_text(),
                    stderr: String::new(),
                    exit_code: report.exit_code(),
                },
                Err(e) => config_error(e.message()),
            }
        }
        Err(e) => e,
    }
}

fn config_error(message: &str) -> CliOutput {
    CliOutput { stdout: String::new(), stderr: format!("{NAME}: {message}\n"), exit_code: 2 }
}

enum Parsed {
    Help,
    Run { token: String, options: InspectOptions, now: u64 },
}

fn parse_inspect(
    args: &[String],
    mut now: u64,
    read_file: &dyn Fn(&str) -> std::result::Result<String, String>,
) -> std::result::Result<Parsed, CliOutput> {
    let mut options = InspectOptions::default();
    let mut token = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--anonymous" => {
                if options.principal.is_some() {
                    return Err(usage_error("give --principal or --anonymous once", "inspect "));
                }
                options.principal = Some(Principal::anonymous());
                continue;
            }
            a if !a.starts_with("--") => {
                if token.replace(a.trim().to_owned()).is_some() {
                    return Err(usage_error("one TOKEN only", "inspect "));
                }
                continue;
            }
            _ => {}
        }
        let (name, value) = take_value(arg, &mut it);
        let known = ["--principal", "--request", "--audience", "--now", "--max-rounds", "--max-flow-age"];
        if !known.contains(&name.as_str()) && name != "--max-token-bytes" && name != "--clock-skew" {
            return Err(usage_error(&format!("unknown option {name:?}"), "inspect "));
        }
        let Some(value) = value else {
            return Err(usage_error(&format!("{name} needs a value"), "inspect "));
        };
        match name.as_str() {
            "--principal" => {
                if options.principal.is_some() {
                    return Err(usage_error("give --principal or --anonymous once", "inspect "));
                }
                let p = Principal::user(value).map_err(|e| usage_error(e.message(), "inspect "))?;
                options.principal = Some(p);
            }
            "--request" => {
                let text = read_file(&value)
                    .map_err(|e| usage_error(&format!("--request {value:?}: {e}"), "inspect "))?;
                options.request = Some(text);
            }
            "--audience" => options.audience = Some(value),
            "--now" => now = number(&name, &value)?,
            "--max-rounds" => options.max_rounds = number(&name, &value)?,
            "--max-flow-age" => options.max_flow_age_secs = number(&name, &value)?,
            "--max-token-bytes" => options.max_token_bytes = number(&name, &value)?,
            _ => options.clock_skew_secs = number(&name, &value)?,
        }
    }
    match token {
        Some(token) if !token.is_empty() => Ok(Parsed::Run { token, options, now }),
        _ => Err(usage_error("a TOKEN is required", "inspect ")),
    }
}
