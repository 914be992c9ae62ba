
use builtin;
use str;

set edit:completion:arg-completer[payverify] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'payverify'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'payverify'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand webhook 'Check payloads the gateway signed, offline'
            cand config 'Inspect or create the config file'
            cand man 'Print the man page (roff) on stdout'
            cand completions 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand verify 'Verify a transaction by its reference and report its outcome'
            cand gate 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order''s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not'
            cand reconcile 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status'
            cand sandbox 'Serve a local stand-in for the service, with magic references for testing scripts'
            cand doctor 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;webhook'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;webhook;check'= {
            cand --expect-amount 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it'
            cand --amount 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it'
            cand --expect-amount-kobo 'Expected amount in kobo (an integer)'
            cand --amount-kobo 'Expected amount in kobo (an integer)'
            cand --expect-currency 'Expected currency code, e.g. NGN (case-insensitive)'
            cand --currency 'Expected currency code, e.g. NGN (case-insensitive)'
            cand --expect-merchant-ref 'Expected merchant reference (exact: nothing is trimmed)'
            cand --merchant-ref 'Expected merchant reference (exact: nothing is trimmed)'
            cand --expect-mode 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;webhook;help'= {
            cand check 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;webhook;help;check'= {
        }
        &'payverify;webhook;help;help'= {
        }
        &'payverify;config'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print the config file that would be used'
            cand show 'Print the effective settings of the selected profile and where each comes from'
            cand init 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
            cand profiles 'List the profiles, marking the default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;config;path'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;config;show'= {
            cand -o '`text`: a table of key, value and source; `json`: one object for scripts, with the same values and sources and every problem (never the secret)'
            cand --output '`text`: a table of key, value and source; `json`: one object for scripts, with the same values and sources and every problem (never the secret)'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;config;init'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --force 'Replace the profile if the file already has one of that name (the others are kept)'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;config;profiles'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --names 'Only the names, one a line, nothing else on stdout or stderr, exit 0 even without a readable config file (what shell completion of --profile calls)'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;config;help'= {
            cand path 'Print the config file that would be used'
            cand show 'Print the effective settings of the selected profile and where each comes from'
            cand init 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
            cand profiles 'List the profiles, marking the default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;config;help;path'= {
        }
        &'payverify;config;help;show'= {
        }
        &'payverify;config;help;init'= {
        }
        &'payverify;config;help;profiles'= {
        }
        &'payverify;config;help;help'= {
        }
        &'payverify;man'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;completions'= {
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;verify'= {
            cand --from 'Read references from FILE, one per line, each exactly as written: only the spaces, tabs and CR around it are taken off. A blank line is an empty reference (refused, exit 2) and a line starting with # is a reference like any other, unless --comments is given (a customer''s reference can start with #)'
            cand -o 'Output format. One reference: table or the service''s JSON object. Several: one record per reference (json is one array of the jsonl records). Given explicitly, it is written even with -q [default: table]'
            cand --output 'Output format. One reference: table or the service''s JSON object. Several: one record per reference (json is one array of the jsonl records). Given explicitly, it is written even with -q [default: table]'
            cand --resume 'Continue an earlier run: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). References whose record there is a final answer, decided by the same checks as this run''s (the same payverify, expectations, --hmac and --expect-mode), are not asked again: the record is carried as it was decided and written in its place as a fresh record is; the rest are asked. Write to a new file'
            cand --state 'Keep the run''s memory in FILE, whatever -o is: each record, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: references whose record there is a final answer are carried as --resume carries them, and FILE then holds this run''s records. It makes a run a batch, even of one reference: `verify REF --state FILE` writes the batch table (one row; -o json, an array of one record) and a summary line on stderr, not REF''s own table. Not stdout, an input or the --summary-json file'
            cand --fail-on 'For a scheduled batch: exit non-zero only for records of these outcome classes (the worst exit among them, else 0), so a declined card does not page anyone; the classes and their outcomes are listed below. Needs a batch (--from, -, or several references) and -o csv, jsonl or json; refused for one reference argument and for gate. The summary line names the records it left out [default: every record counts]'
            cand -j 'Worker threads for several references (they share one connection pool)'
            cand --jobs 'Worker threads for several references (they share one connection pool)'
            cand --rate 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N'
            cand --timeout 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]'
            cand --retries 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]'
            cand --wait 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]'
            cand --give-up-after 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]'
            cand --auth-style 'How the Authorization header carries the credentials [default: standard] [config: auth_style]'
            cand --hmac 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]'
            cand --proxy 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]'
            cand --ca-cert 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]'
            cand --expect-mode 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]'
            cand --expect-amount 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it'
            cand --amount 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it'
            cand --expect-amount-kobo 'Expected amount in kobo (an integer)'
            cand --amount-kobo 'Expected amount in kobo (an integer)'
            cand --expect-currency 'Expected currency code, e.g. NGN (case-insensitive)'
            cand --currency 'Expected currency code, e.g. NGN (case-insensitive)'
            cand --expect-merchant-ref 'Expected merchant reference (exact: nothing is trimmed)'
            cand --merchant-ref 'Expected merchant reference (exact: nothing is trimmed)'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --comments 'The lists (--from, -) are written by hand: skip blank lines and lines starting with #. Without it, every line is a reference as a customer gave it, and none is dropped without a word'
            cand --sandbox 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
            cand --tls 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;gate'= {
            cand --amount 'The order''s amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00); compared exactly in kobo. Or --amount-kobo'
            cand --expect-amount 'The order''s amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00); compared exactly in kobo. Or --amount-kobo'
            cand --amount-kobo 'The order''s amount in kobo (an integer)'
            cand --expect-amount-kobo 'The order''s amount in kobo (an integer)'
            cand --merchant-ref 'The merchant reference the order was paid under, exactly (what the shop stored for it): a payment made for another order never passes'
            cand --expect-merchant-ref 'The merchant reference the order was paid under, exactly (what the shop stored for it): a payment made for another order never passes'
            cand --currency 'The order''s currency (case-insensitive)'
            cand --expect-currency 'The order''s currency (case-insensitive)'
            cand --fail-on 'Refused with its own message: a gate''s exit status is its one payment''s'
            cand --timeout 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]'
            cand --retries 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]'
            cand --wait 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]'
            cand --give-up-after 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]'
            cand --auth-style 'How the Authorization header carries the credentials [default: standard] [config: auth_style]'
            cand --proxy 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]'
            cand --ca-cert 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]'
            cand --expect-mode 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]'
            cand -j 'Worker threads for several references (they share one connection pool)'
            cand --jobs 'Worker threads for several references (they share one connection pool)'
            cand --rate 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N'
            cand --hmac 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --sandbox 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
            cand --tls 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;reconcile'= {
            cand -o 'Output format, one entry per row of the orders file. Given explicitly, it is written even with -q [default: table]'
            cand --output 'Output format, one entry per row of the orders file. Given explicitly, it is written even with -q [default: table]'
            cand --resume 'Continue an earlier reconciliation of this file: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). A row whose result there is final (anything but UNVERIFIED and NOT_FINAL), that is still the same row, and whose stored answer this run''s checks judge to the same result is not asked again: it is written in its place as a fresh row is. Write to a new file'
            cand --state 'Keep the run''s memory in FILE, whatever -o is: each row, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: rows whose result there is final are carried as --resume carries them, and FILE then holds this run''s rows. Not stdout, an input or the --summary-json file'
            cand --summary-json 'Also write the summary (rows and totals per result and currency, at risk, net difference) as JSON to FILE, written whole at the end; `-`, stdout, stderr, a file the run reads (the orders file) and a symlink are refused'
            cand --fail-on 'For a scheduled run: exit non-zero only for rows of these classes (the most severe exit among them, else 0), verify''s class names; each result''s class is in the list of results below. Needs -o csv, jsonl or json, so every row still says what it came to. The summary line names the rows it left out [default: every row counts]'
            cand --delimiter 'The column separator: `,`, `;` or `tab` [default: detected from the header line] [config: reconcile.delimiter]'
            cand --header-row 'The line of the header row [default: the first of the first 50 lines that names a reference and an amount column; title lines above it (at most 3 filled cells) are skipped] [config: reconcile.header_row]'
            cand --reference-column 'The reference column [default: the first of reference, ref, transaction ref, payment reference, reference number, transaction id (WooCommerce), transaction reference, txn ref, payment ref, payment references (Shopify); never RRN] [config: reconcile.reference_column]'
            cand --amount-column 'The expected amount column: the gross [default: the first of amount, expected amount, amount paid, total, order total, order total amount, transaction amount, total amount, grand total, gross amount, order amount; never settlement amount, which is net of fees] [config: reconcile.amount_column]'
            cand --currency-column 'The currency column, its cells ISO 4217 codes: NGN or 566 [default: currency, currency code, order currency or transaction currency] [config: reconcile.currency_column]'
            cand --merchant-ref-column 'The merchant reference column [default: merchant ref or merchant reference; an order id column is never guessed, as the gateway''s merchantRef usually only contains it] [config: reconcile.merchant_ref_column]'
            cand --amount-unit 'How amounts are written: naira (40000, 40000.5, 40,000.00, ₦40,000.00; exact, never rounded) or kobo (whole numbers) [default: naira] [config: reconcile.amount_unit]'
            cand --currency 'The currency rows expect when the file has no currency column (or a row''s cell is empty: then said on stderr): an ISO 4217 code, NGN or 566 [default: NGN] [config: reconcile.currency]'
            cand --only 'Reconcile only the rows whose COLUMN cell is PATTERN (the whole cell, case ignored, `*` for any text), such as --only "Order Date=2026-11-21*"; repeat it and a row must match each. COLUMN is a header name. The other rows are SKIPPED: listed, counted apart, never asked about'
            cand --reference-pattern 'For a bank statement: take the reference out of the reference column''s text (its Remarks or Narration) with REGEX, the first capture group if it has one, else the whole match, such as --reference-pattern ''PWB3D[/ ]([0-9]+_[0-9]{10}(_[0-9]+)?)''. A row whose text does not match, and a debit row, is SKIPPED: not a gateway payment. Name the credits with --amount-column. Not with --resume or --state'
            cand -j 'Worker threads for several references (they share one connection pool)'
            cand --jobs 'Worker threads for several references (they share one connection pool)'
            cand --rate 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N'
            cand --timeout 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]'
            cand --retries 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]'
            cand --wait 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]'
            cand --give-up-after 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]'
            cand --auth-style 'How the Authorization header carries the credentials [default: standard] [config: auth_style]'
            cand --hmac 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]'
            cand --proxy 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]'
            cand --ca-cert 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]'
            cand --expect-mode 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --all 'With the table: list every row, MATCHED ones too (the table shows at most 1000 rows; -o csv streams every one)'
            cand --no-currency-column 'Read no currency column, even one found by its name: every row expects --currency [config: reconcile.no_currency_column]'
            cand --bom 'With -o csv: start the output with a UTF-8 byte-order mark, so Excel on Windows reads it as UTF-8 (the naira sign, names) [default: when the input file has one]'
            cand --no-bom 'With -o csv: no byte-order mark, even when the input file has one'
            cand --sandbox 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
            cand --tls 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;sandbox'= {
            cand --port 'Port on 127.0.0.1 (0 picks a free one)'
            cand --latency-ms 'Milliseconds added to every response, to model a real network'
            cand --tls-ca-out 'Write the CA''s PEM here instead of a temporary file (which is removed on exit)'
            cand --rate-limit 'Throttle like a rate-limited gateway: a token bucket of N requests per second (50/s, 0.5/s, 600/m); a request that finds it empty gets --rate-limit-status. Change it while running: POST /sandbox/rate-limit?rate=20/s (rate=off lifts it); counts per second: GET /sandbox/stats'
            cand --burst 'With --rate-limit: requests the bucket holds when full, the burst sent at once [default: one second''s worth]'
            cand --rate-limit-status 'With --rate-limit: the status of a throttled answer'
            cand --retry-after 'With --rate-limit: the Retry-After of a throttled answer, whole seconds, or `none` to send none'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand --tls 'Serve HTTPS, with a certificate for 127.0.0.1, ::1 and localhost signed by a CA made at start; its PEM path is printed on the second line of stdout, for --ca-cert'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;doctor'= {
            cand -o '`text`: one line per check; `json`: one object for scripts and support tickets (never holding the secret)'
            cand --output '`text`: one line per check; `json`: one object for scripts and support tickets (never holding the secret)'
            cand --timeout 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]'
            cand --auth-style 'How the Authorization header carries the credentials [default: standard] [config: auth_style]'
            cand --hmac 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]'
            cand --proxy 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]'
            cand --ca-cert 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]'
            cand --expect-mode 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]'
            cand --retries 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]'
            cand --wait 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]'
            cand --give-up-after 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]'
            cand --base-url 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]'
            cand --client-id 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]'
            cand --client-secret-file 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file'
            cand --profile 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]'
            cand --config 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]'
            cand --color 'When to colour output; `auto` colours only a terminal and honours NO_COLOR'
            cand -v 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand --verbose 'Log each attempt (method, URL, status, time, retry decision) to stderr'
            cand -q 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand --quiet 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'payverify;help'= {
            cand webhook 'Check payloads the gateway signed, offline'
            cand config 'Inspect or create the config file'
            cand man 'Print the man page (roff) on stdout'
            cand completions 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand verify 'Verify a transaction by its reference and report its outcome'
            cand gate 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order''s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not'
            cand reconcile 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status'
            cand sandbox 'Serve a local stand-in for the service, with magic references for testing scripts'
            cand doctor 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payverify;help;webhook'= {
            cand check 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
        }
        &'payverify;help;webhook;check'= {
        }
        &'payverify;help;config'= {
            cand path 'Print the config file that would be used'
            cand show 'Print the effective settings of the selected profile and where each comes from'
            cand init 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
            cand profiles 'List the profiles, marking the default'
        }
        &'payverify;help;config;path'= {
        }
        &'payverify;help;config;show'= {
        }
        &'payverify;help;config;init'= {
        }
        &'payverify;help;config;profiles'= {
        }
        &'payverify;help;man'= {
        }
        &'payverify;help;completions'= {
        }
        &'payverify;help;verify'= {
        }
        &'payverify;help;gate'= {
        }
        &'payverify;help;reconcile'= {
        }
        &'payverify;help;sandbox'= {
        }
        &'payverify;help;doctor'= {
        }
        &'payverify;help;help'= {
        }
    ]
    $completions[$command]
}
