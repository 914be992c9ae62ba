//! `payverify completions SHELL` and `payverify man`.

use roff::{Inline, Roff, bold, italic, roman};

use crate::cli;
use crate::domain::class::Class;
use crate::domain::outcome_table::class_members;
use crate::exit::{Exit, Failure};
use crate::render::{Printer, write_output};
use crate::settings::env;

/// The completion script for `shell`, as committed under `completions/`.
pub(crate) fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "payverify", &mut out);
    match String::from_utf8(out) {
        Ok(script) => with_profile_names(shell, script).into_bytes(),
        Err(e) => e.into_bytes(),
    }
}

/// clap_complete offers file names after `--profile`; in bash, zsh and fish the script
/// instead asks `payverify config profiles --names` for the config file's profiles.
fn with_profile_names(shell: clap_complete::Shell, script: String) -> String {
    use clap_complete::Shell;
    match shell {
        Shell::Bash => {
            let tail = "if [[ \"${BASH_VERSINFO[0]}\" -eq 4";
            let script = script.replace(
                "complete -F _payverify ",
                "complete -F _payverify_with_profiles ",
            );
            script.replacen(tail, &format!("{BASH_PROFILES}\n{tail}"), 1)
        }
        Shell::Zsh => {
            let tail = "if [ \"$funcstack[1]\" = \"_payverify\" ]; then";
            let script = each_line(&script, |line| match line.starts_with("'--profile=[") {
                true => line.replace(":NAME:_default'", ":NAME:_payverify_profiles'"),
                false => line.to_owned(),
            });
            script.replacen(tail, &format!("{ZSH_PROFILES}\n{tail}"), 1)
        }
        Shell::Fish => each_line(&script, |line| {
            match line.contains(" -l profile -d ") && line.ends_with(" -r") {
                true => format!("{line} -f -a \"(payverify config profiles --names 2>/dev/null)\""),
                false => line.to_owned(),
            }
        }),
        _ => script,
    }
}

/// `script` with each line replaced by what `edit` makes of it, each ending in a newline.
fn each_line(script: &str, edit: impl Fn(&str) -> String) -> String {
    script.lines().map(|line| edit(line) + "\n").collect()
}

/// Completes `--profile NAME` from the config file (the one `--config` names, if typed
/// before), and everything else as clap_complete's `_payverify` does.
const BASH_PROFILES: &str = r#"_payverify_with_profiles() {
    if [[ "${COMP_WORDS[COMP_CWORD-1]}" == --profile ]]; then
        local i config=()
        for ((i = 1; i < COMP_CWORD - 1; i++)); do
            [[ "${COMP_WORDS[i]}" == --config ]] && config=(--config "${COMP_WORDS[i+1]}")
        done
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${config[@]}" config profiles --names 2>/dev/null)" -- "${COMP_WORDS[COMP_CWORD]}"))
        return 0
    fi
    _payverify "$@"
}
"#;

/// The profile names of the config file, for `--profile`.
const ZSH_PROFILES: &str = r#"(( $+functions[_payverify_profiles] )) ||
_payverify_profiles() {
    local -a names
    names=(${(f)"$(${words[1]} config profiles --names 2>/dev/null)"})
    compadd -a names
}
"#;

/// Prints the completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> Result<Exit, Failure> {
    write_output(Printer::plain_stdout().bytes(&completion_script(shell)))?;
    Ok(Exit::Successful)
}

/// The man page as roff.
pub(crate) fn man_page() -> Result<Vec<u8>, std::io::Error> {
    let mut cmd = cli::command();
    // Propagates global args into subcommands, which are rendered on their own below.
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    // Not clap_mangen's: it points to a payverify-verify(1) page per subcommand, and this
    // page is the only one; each subcommand's options are in its own section below.
    out.extend(subcommands_section(&cmd).into_bytes());
    out.extend(subcommand_sections(&cmd).into_bytes());
    out.extend(extra_sections().into_bytes());
    man.render_version_section(&mut out)?;
    Ok(roff_ascii_money(&String::from_utf8_lossy(&out)).into_bytes())
}

/// The naira sign written as `NGN` (`₦40,000.00` as `NGN 40,000.00`, joined by roff's
/// unbreakable space so the two never part at a line end): groff has no glyph for
/// U+20A6 on the ASCII device that `man` uses under `LANG=C`, where it warned `can't find
/// special character 'u20A6'` and dropped the sign, leaving a bare `40,000.00`. `NGN 40000` is
/// also a form `--expect-amount` accepts.
fn roff_ascii_money(roff: &str) -> String {
    let spaced = ('0'..='9').fold(roff.to_owned(), |text, digit| {
        text.replace(&format!("₦{digit}"), &format!("NGN\\ {digit}"))
    });
    spaced.replace('₦', "NGN")
}

/// Every subcommand but help, with its path, each followed by its own: in the order help lists
/// them (editing a subcommand moves it to the end of the list), or with the nested ones last
/// first, the order the options sections have always had.
fn subcommands(cmd: &clap::Command, nested_reversed: bool) -> Vec<(String, &clap::Command)> {
    fn listed(c: &clap::Command) -> Vec<(String, &clap::Command)> {
        (c.get_subcommands().filter(|s| s.get_name() != "help"))
            .map(|s| (s.get_name().to_owned(), s))
            .collect()
    }
    let mut stack = listed(cmd);
    stack.sort_by_key(|(_, s)| s.get_display_order());
    stack.reverse();
    let mut all = Vec::new();
    while let Some((path, sub)) = stack.pop() {
        let nested = listed(sub)
            .into_iter()
            .map(|(n, s)| (format!("{path} {n}"), s));
        match nested_reversed {
            true => stack.extend(nested),
            false => stack.extend(nested.rev()),
        }
        all.push((path, sub));
    }
    all
}

/// The SUBCOMMANDS list: each one (nested ones too) with what it does, pointing to the
/// section of its options below.
fn subcommands_section(cmd: &clap::Command) -> String {
    let mut r = Roff::new();
    r.control("SH", ["SUBCOMMANDS"]);
    for (path, sub) in subcommands(cmd, false) {
        r.control("TP", []);
        r.text([bold(format!("payverify {path}"))]);
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let pointer = match own_arguments(sub).is_empty() {
            true => String::new(),
            false => format!(" Options: {} OPTIONS below.", path.to_uppercase()),
        };
        r.text([roman(format!("{}.{pointer}", about.trim_end_matches('.')))]);
    }
    r.render()
}

/// A subcommand's own documented arguments: not the global ones (in OPTIONS already), not
/// hidden ones, not help and version.
fn own_arguments(sub: &clap::Command) -> Vec<&clap::Arg> {
    sub.get_arguments()
        .filter(|a| !a.is_global_set() && !a.is_hide_set())
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .collect()
}

/// One section per subcommand (nested ones too) listing its own arguments; the global
/// ones are in OPTIONS already.
fn subcommand_sections(cmd: &clap::Command) -> String {
    let mut r = Roff::new();
    for (path, sub) in subcommands(cmd, true) {
        let own = own_arguments(sub);
        if own.is_empty() {
            continue;
        }
        r.control("SH", [format!("{} OPTIONS", path.to_uppercase()).as_str()]);
        for arg in own {
            r.control("TP", []);
            r.text([bold(arg_synopsis(arg))]);
            let help = arg
                .get_long_help()
                .or(arg.get_help())
                .map(|h| h.to_string());
            r.text([roman(help.unwrap_or_default())]);
        }
    }
    r.render()
}

fn arg_synopsis(arg: &clap::Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|v| v.first())
        .map(|v| v.to_string())
        .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    match (names.is_empty(), takes_value) {
        (true, _) => format!("<{value}>"),
        (false, true) => format!("{} <{value}>", names.join(", ")),
        (false, false) => names.join(", "),
    }
}

fn extra_sections() -> String {
    let mut r = Roff::new();
    r.control("SH", ["EXIT STATUS"]);
    for exit in Exit::ALL {
        item(&mut r, bold(exit.code().to_string()), roman(exit.meaning()));
    }
    r.control("PP", []);
    r.text([roman(INCOMPLETE_RUNS)]);
    r.control("SH", ["OUTCOME CLASSES"]);
    r.text([roman(OUTCOME_CLASSES)]);
    for class in Class::ALL {
        let members = class_members(class).join(", ");
        item(
            &mut r,
            bold(class.name()),
            roman(format!("{members}: {}", class.meaning())),
        );
    }
    r.control("SH", ["DOCTOR"]);
    r.text([roman(DOCTOR)]);
    r.text([roman(crate::cli::DOCTOR_EXIT)]);
    r.control("SH", ["RECONCILE"]);
    r.text([roman(RECONCILE)]);
    // The table keeps its columns: no filling, no hyphenation.
    r.control("nf", []);
    for line in crate::cli::reconcile_exit().lines() {
        r.text([roman(line)]);
        r.control("br", []);
    }
    r.control("fi", []);
    r.control("SH", ["ENVIRONMENT"]);
    for (name, what) in ENVIRONMENT {
        item(&mut r, bold(name), roman(what));
    }
    r.control("SH", ["FILES"]);
    let config = italic("$XDG_CONFIG_HOME/payverify/config.toml");
    item(&mut r, config, roman(CONFIG_FILE));
    r.control("SH", ["EXAMPLES"]);
    let nightly_what = format!("{}:", crate::cli::NIGHTLY_WHAT);
    let examples = [
        (
            "Try it with no account:",
            "payverify verify --sandbox 0000000000000044177",
        ),
        (
            "Gate a shipment on one exit status (0 only for a genuine payment of this order):",
            crate::cli::GATE,
        ),
        (
            "Pipe the service's JSON into jq:",
            "payverify verify -o json -- \"$ref\" | jq -r .status",
        ),
        (
            "Reconcile a day's references to CSV:",
            "payverify verify --from refs.txt -j 16 -o csv > verified.csv",
        ),
        (nightly_what.as_str(), crate::cli::NIGHTLY),
        (
            "Check a webhook payload offline:",
            "payverify webhook check payload.json",
        ),
        (
            "See where each setting comes from:",
            "payverify config show",
        ),
        (
            "After configuring, check the set-up and whether the gateway's hmac verifies:",
            "payverify doctor -- \"$known_ref\"",
        ),
    ];
    for (what, command) in examples {
        item(&mut r, roman(what), bold(command));
    }
    r.render()
}

/// One entry of a `.TP` list: its tag, then its text indented below.
fn item(r: &mut Roff, tag: Inline, text: Inline) {
    r.control("TP", []);
    r.text([tag]);
    r.text([text]);
}

/// After the exit statuses: a run cut short is never 0.
const INCOMPLETE_RUNS: &str = "Incomplete runs are never 0. A batch (verify with several references, a file or \
     stdin; reconcile) that ends before every input item was verified exits 10 whatever \
     the items it reached say: a reader of stdout that goes away (| head, even when the \
     whole input fits the read-ahead window), output that cannot be written, input \
     unreadable past some point. A signal is 130. -q silences the message, never the \
     exit status; reconcile's --summary-json says \"complete\": false and \
     rows_not_reached.";

/// Before the outcome classes: what --fail-on does with them.
const OUTCOME_CLASSES: &str = "verify --fail-on CLASS[,CLASS...], for a scheduled batch: the exit status is the worst \
     exit among the records of the classes named, else 0, so a declined card does not \
     page anyone while a payment that fails its checks does. Usage, configuration, \
     incomplete and interrupted runs (2, 6, 10, 130) are never left out, nor is the fault \
     class. It needs a batch (--from, -, or several references) and -o csv, jsonl or json, \
     and is refused (exit 2) for one reference argument and by gate: one payment's exit \
     status is always its own, so a FAILED payment is never 0. The summary line names \
     the records left out. Each outcome's class:";

/// What doctor checks, before its exit statuses.
const DOCTOR: &str = "payverify doctor [REFERENCE] checks the set-up in the order a request meets it, one \
     line per check, each ok, warn or FAIL with what was found and, on warn/FAIL, the fix: \
     config (file, profile and why), settings (base URL, client id, secret, with sources; \
     the secret is read, never shown), base_url, resolve, connect, tls (protocol, \
     certificate subject, issuer and days to expiry, whether --ca-cert was needed), \
     credentials (a GET for a made-up reference: a JSON 404 means the service is there \
     and accepted the credentials) and, with REFERENCE, reference, hmac (whether the \
     hmac verifies under this secret, so hmac = \"require\" is safe) and mode (the mode \
     the answer carries, and the expect_mode line to add). It stops at the \
     first failure that makes the rest meaningless, never prompts, and bounds each step \
     by --timeout. ";

/// What reconcile does, before its results and exit statuses.
const RECONCILE: &str = "payverify reconcile FILE reads an orders file (CSV with a header row) and verifies \
     each row's reference, comparing the gateway's answer with the row's own amount, \
     currency and merchant ref. Rows keep their input order; each gets one result. ";

/// The environment variables payverify reads, each with what it is for.
const ENVIRONMENT: [(&str, &str); 9] = [
    (
        env::BASE_URL,
        "Base URL of the service (below --base-url, above the profile).",
    ),
    (
        env::CLIENT_ID,
        "Client id (the merchant dashboard's public key).",
    ),
    (
        env::CLIENT_SECRET,
        "Client secret. There is no flag for it: argv is visible to all.",
    ),
    (env::PROFILE, "Config profile to use."),
    (env::CONFIG, "Config file to use."),
    ("NO_COLOR", "Disables colour when --color is auto."),
    (
        "CLICOLOR_FORCE",
        "Forces colour when --color is auto and NO_COLOR is unset.",
    ),
    (
        "https_proxy, all_proxy, http_proxy, NO_PROXY",
        "Proxy for remote hosts when neither --proxy nor the profile's proxy key is \
             given: the first set of https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY, \
             http_proxy, HTTP_PROXY (HTTP_PROXY is ignored when REQUEST_METHOD is set); \
             an unusable one is exit 6. NO_PROXY (or no_proxy) lists hosts reached without it.",
    ),
    ("XDG_CONFIG_HOME", "Where the default config file lives."),
];

/// The config file, after its path.
const CONFIG_FILE: &str = "The config file on Linux (usually ~/.config/payverify/config.toml); on macOS \
     ~/Library/Application Support/payverify/config.toml, on Windows \
     %APPDATA%\\payverify\\config\\config.toml (payverify config path prints it): \
     default_profile and [profiles.NAME] tables with base_url, client_id, client_secret, client_secret_file, \
     client_secret_command, auth_style, timeout, retries, wait, give_up_after, hmac, \
     expect_mode, proxy and ca_cert. \
     Create one with payverify config init.";

/// Prints the man page.
pub(crate) fn man() -> Result<Exit, Failure> {
    let page = man_page()
        .map_err(|e| Failure::new(Exit::Internal, format!("cannot render the man page: {e}")))?;
    write_output(Printer::plain_stdout().bytes(&page))?;
    Ok(Exit::Successful)
}
