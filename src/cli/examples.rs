//! The EXAMPLES section of each command's `--help`: what people type, one line each.

/// The payment gate, the safe one and short enough to type: the one text the README,
/// `verify --help`, `gate --help` and the man page all show (a test holds them to it). The
/// reference comes after `--`: a customer controls it.
pub const GATE: &str =
    "payverify gate --amount \"$total\" --merchant-ref \"$order_ref\" -- \"$ref\"";

/// What [`GATE`] does, in the words its examples give it.
pub(crate) const GATE_WHAT: &str =
    "Gate a shipment: exit 0 only for a genuine payment of this order";

/// A scheduled batch that mails only when a person must act: what `--fail-on` is for, in
/// `verify --help` and the man page (a test runs it).
pub const NIGHTLY: &str = "payverify verify --from refs.txt --fail-on mismatch,unverified -o csv >out 2>log || mail ops <log";

/// What [`NIGHTLY`] does.
pub(crate) const NIGHTLY_WHAT: &str =
    "Nightly: mail only when a payment failed its checks or could not be verified";

/// Examples per command path (`verify`, `webhook check`, ...): a short description, then
/// the command line.
pub(crate) const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            (
                "Try it with no account",
                "payverify verify --sandbox 0000000000000044177",
            ),
            ("Check the set-up", "payverify doctor"),
        ],
    ),
    (
        "verify",
        &[
            (
                "One reference, as a table",
                "payverify verify 0000000000000044177",
            ),
            (GATE_WHAT, GATE),
            (
                "The service's JSON for jq",
                "payverify verify -o json -- \"$ref\" | jq -r .status",
            ),
            (
                "A day's references to CSV, 16 at a time",
                "payverify verify --from refs.txt -j 16 -o csv > verified.csv",
            ),
            (
                "Only the problems, as JSON lines",
                "payverify verify --from refs.txt -o jsonl | jq -c 'select(.outcome != \"SUCCESSFUL\")'",
            ),
            (
                "Wait up to 5 minutes for a pending payment to become final",
                "payverify verify --wait 5m -- \"$ref\"",
            ),
            (NIGHTLY_WHAT, NIGHTLY),
            (
                "Finish an interrupted run, asking only what is not final yet",
                "payverify verify --from refs.txt -o jsonl --resume run1.jsonl > run2.jsonl",
            ),
            (
                "Against the built-in sandbox",
                "payverify verify --sandbox SANDBOX-FAILED-1",
            ),
        ],
    ),
    (
        "gate",
        &[
            (GATE_WHAT, GATE),
            (
                "Try it: the sandbox answers SANDBOX-MERCHANT-<ref> as a payment for <ref>",
                "payverify gate --sandbox --amount 40000 --merchant-ref ORDER-17 -- SANDBOX-MERCHANT-ORDER-17",
            ),
            (
                "Another currency, waiting up to 2 minutes for a pending payment",
                "payverify gate --amount \"$total\" --currency USD --merchant-ref \"$order_ref\" --wait 2m -- \"$ref\"",
            ),
        ],
    ),
    (
        "reconcile",
        &[
            (
                "Your WooCommerce orders export as it comes: the rows that need a look, then the totals",
                "payverify reconcile orders-export.csv",
            ),
            (
                "A bank's card settlement file: title lines skipped, Transaction Ref, 566 read as NGN",
                "payverify reconcile settlement.csv",
            ),
            (
                "Every row with its result, for a spreadsheet",
                "payverify reconcile orders.csv -j 16 -o csv > reconciled.csv",
            ),
            (
                "Nightly: mail only when a row needs a look (exit not 0)",
                "payverify reconcile -q -o csv orders.csv >out.csv || mail -s orders ops <out.csv",
            ),
            (
                "Keep what each run decided: run it again after a stop, asking only what is not final",
                "payverify reconcile orders.csv -o csv --state orders.state > reconciled.csv",
            ),
            (
                "A layout no known name matches: name the columns (or save them in the profile)",
                "payverify reconcile export.csv --reference-column TxnRef --amount-unit kobo",
            ),
            (
                "Try it against the sandbox",
                "payverify reconcile --sandbox orders.csv",
            ),
        ],
    ),
    (
        "sandbox",
        &[
            ("Serve on port 8089", "payverify sandbox"),
            (
                "HTTPS, with its CA saved for --ca-cert",
                "payverify sandbox --tls --tls-ca-out ca.pem",
            ),
        ],
    ),
    (
        "webhook",
        &[(
            "Check a saved webhook body",
            "payverify webhook check payload.json",
        )],
    ),
    (
        "webhook check",
        &[
            (
                "Check a saved webhook body",
                "payverify webhook check payload.json",
            ),
            (
                "From stdin, with the expected amount",
                "payverify webhook check --expect-amount 40000 < payload.json",
            ),
        ],
    ),
    (
        "config",
        &[
            (
                "Write a config file",
                "payverify --profile live config init --client-id PUBLIC_KEY",
            ),
            ("Where each setting comes from", "payverify config show"),
        ],
    ),
    (
        "config path",
        &[(
            "Edit the config file",
            "\"$EDITOR\" \"$(payverify config path)\"",
        )],
    ),
    (
        "config show",
        &[
            ("The effective settings", "payverify config show"),
            (
                "Another profile's",
                "payverify --profile staging config show",
            ),
        ],
    ),
    (
        "config init",
        &[
            (
                "A live profile",
                "payverify config init --client-id PUBLIC_KEY",
            ),
            (
                "Add a staging profile to the same file",
                "payverify --profile staging config init --base-url https://staging.example",
            ),
        ],
    ),
    (
        "config profiles",
        &[("List the profiles", "payverify config profiles")],
    ),
    (
        "doctor",
        &[
            ("Check the set-up", "payverify doctor"),
            (
                "And whether a real reference's hmac verifies",
                "payverify doctor -- \"$known_ref\"",
            ),
            ("As JSON for a support ticket", "payverify doctor -o json"),
        ],
    ),
    (
        "completions",
        &[
            (
                "bash",
                "payverify completions bash > ~/.local/share/bash-completion/completions/payverify",
            ),
            (
                "fish",
                "payverify completions fish > ~/.config/fish/completions/payverify.fish",
            ),
        ],
    ),
    ("man", &[("Read the manual", "payverify man | man -l -")]),
];

/// The EXAMPLES text for the command at `path` (`""` for payverify itself), if it has any.
pub(crate) fn section(path: &str) -> Option<String> {
    let (_, examples) = EXAMPLES.iter().find(|(p, _)| *p == path)?;
    let mut text = String::from("Examples:\n");
    for (what, line) in examples.iter() {
        text.push_str(&format!("  # {what}\n  {line}\n"));
    }
    Some(text.trim_end().to_owned())
}
