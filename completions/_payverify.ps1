
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'payverify' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'payverify'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'payverify' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Check payloads the gateway signed, offline')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Inspect or create the config file')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show what the journal remembers: every check of a reference, oldest first, or (--changed) the payments whose answer changed between two checks')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) on stdout')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Verify a transaction by its reference and report its outcome')
            [CompletionResult]::new('gate', 'gate', [CompletionResultType]::ParameterValue, 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order''s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'Serve a local stand-in for the service, with magic references for testing scripts')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;webhook' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;webhook;check' {
            [CompletionResult]::new('--expect-amount', '--expect-amount', [CompletionResultType]::ParameterName, 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it')
            [CompletionResult]::new('--amount', '--amount', [CompletionResultType]::ParameterName, 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it')
            [CompletionResult]::new('--expect-amount-kobo', '--expect-amount-kobo', [CompletionResultType]::ParameterName, 'Expected amount in kobo (an integer)')
            [CompletionResult]::new('--amount-kobo', '--amount-kobo', [CompletionResultType]::ParameterName, 'Expected amount in kobo (an integer)')
            [CompletionResult]::new('--expect-currency', '--expect-currency', [CompletionResultType]::ParameterName, 'Expected currency code, e.g. NGN (case-insensitive)')
            [CompletionResult]::new('--currency', '--currency', [CompletionResultType]::ParameterName, 'Expected currency code, e.g. NGN (case-insensitive)')
            [CompletionResult]::new('--expect-merchant-ref', '--expect-merchant-ref', [CompletionResultType]::ParameterName, 'Expected merchant reference (exact: nothing is trimmed)')
            [CompletionResult]::new('--merchant-ref', '--merchant-ref', [CompletionResultType]::ParameterName, 'Expected merchant reference (exact: nothing is trimmed)')
            [CompletionResult]::new('--expect-mode', '--expect-mode', [CompletionResultType]::ParameterName, 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;webhook;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;webhook;help;check' {
            break
        }
        'payverify;webhook;help;help' {
            break
        }
        'payverify;config' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file that would be used')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of the selected profile and where each comes from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;config;path' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;config;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, '`text`: a table of key, value and source; `json`: one object for scripts, with the same values and sources and every problem (never the secret)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, '`text`: a table of key, value and source; `json`: one object for scripts, with the same values and sources and every problem (never the secret)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;config;init' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace the profile if the file already has one of that name (the others are kept)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;config;profiles' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--names', '--names', [CompletionResultType]::ParameterName, 'Only the names, one a line, nothing else on stdout or stderr, exit 0 even without a readable config file (what shell completion of --profile calls)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;config;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file that would be used')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of the selected profile and where each comes from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;config;help;path' {
            break
        }
        'payverify;config;help;show' {
            break
        }
        'payverify;config;help;init' {
            break
        }
        'payverify;config;help;profiles' {
            break
        }
        'payverify;config;help;help' {
            break
        }
        'payverify;history' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'With --changed: only the changes whose later check is this recent, e.g. 24h, 7d')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, '`table` for people, or `json`: one array of the entries (with --changed, of `{reference, before, after}`)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, '`table` for people, or `json`: one array of the entries (with --changed, of `{reference, before, after}`)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--changed', '--changed', [CompletionResultType]::ParameterName, 'Instead, every reference whose status, amount or currency changed between two of its checks (a payment reversed, an amount corrected), with both answers')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;man' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;completions' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;verify' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Read references from FILE, one per line, each exactly as written: only the spaces, tabs and CR around it are taken off. A blank line is an empty reference (refused, exit 2) and a line starting with # is a reference like any other, unless --comments is given (a customer''s reference can start with #)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format. One reference: table or the service''s JSON object. Several: one record per reference (json is one array of the jsonl records). Given explicitly, it is written even with -q [default: table]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format. One reference: table or the service''s JSON object. Several: one record per reference (json is one array of the jsonl records). Given explicitly, it is written even with -q [default: table]')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Continue an earlier run: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). References whose record there is a final answer, decided by the same checks as this run''s (the same payverify, expectations, --hmac and --expect-mode), are not asked again: the record is carried as it was decided and written in its place as a fresh record is; the rest are asked. Write to a new file')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep the run''s memory in FILE, whatever -o is: each record, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: references whose record there is a final answer are carried as --resume carries them, and FILE then holds this run''s records. It makes a run a batch, even of one reference: `verify REF --state FILE` writes the batch table (one row; -o json, an array of one record) and a summary line on stderr, not REF''s own table. Not stdout, an input or the --summary-json file')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'For a scheduled batch: exit non-zero only for records of these outcome classes (the worst exit among them, else 0), so a declined card does not page anyone; the classes and their outcomes are listed below. Needs a batch (--from, -, or several references) and -o csv, jsonl or json; refused for one reference argument and for gate. The summary line names the records it left out [default: every record counts]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]')
            [CompletionResult]::new('--give-up-after', '--give-up-after', [CompletionResultType]::ParameterName, 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]')
            [CompletionResult]::new('--auth-style', '--auth-style', [CompletionResultType]::ParameterName, 'How the Authorization header carries the credentials [default: standard] [config: auth_style]')
            [CompletionResult]::new('--hmac', '--hmac', [CompletionResultType]::ParameterName, 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]')
            [CompletionResult]::new('--expect-mode', '--expect-mode', [CompletionResultType]::ParameterName, 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]')
            [CompletionResult]::new('--expect-amount', '--expect-amount', [CompletionResultType]::ParameterName, 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it')
            [CompletionResult]::new('--amount', '--amount', [CompletionResultType]::ParameterName, 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate''s name for it')
            [CompletionResult]::new('--expect-amount-kobo', '--expect-amount-kobo', [CompletionResultType]::ParameterName, 'Expected amount in kobo (an integer)')
            [CompletionResult]::new('--amount-kobo', '--amount-kobo', [CompletionResultType]::ParameterName, 'Expected amount in kobo (an integer)')
            [CompletionResult]::new('--expect-currency', '--expect-currency', [CompletionResultType]::ParameterName, 'Expected currency code, e.g. NGN (case-insensitive)')
            [CompletionResult]::new('--currency', '--currency', [CompletionResultType]::ParameterName, 'Expected currency code, e.g. NGN (case-insensitive)')
            [CompletionResult]::new('--expect-merchant-ref', '--expect-merchant-ref', [CompletionResultType]::ParameterName, 'Expected merchant reference (exact: nothing is trimmed)')
            [CompletionResult]::new('--merchant-ref', '--merchant-ref', [CompletionResultType]::ParameterName, 'Expected merchant reference (exact: nothing is trimmed)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--comments', '--comments', [CompletionResultType]::ParameterName, 'The lists (--from, -) are written by hand: skip blank lines and lines starting with #. Without it, every line is a reference as a customer gave it, and none is dropped without a word')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed')
            [CompletionResult]::new('--tls', '--tls', [CompletionResultType]::ParameterName, 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;gate' {
            [CompletionResult]::new('--amount', '--amount', [CompletionResultType]::ParameterName, 'The order''s amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00); compared exactly in kobo. Or --amount-kobo')
            [CompletionResult]::new('--expect-amount', '--expect-amount', [CompletionResultType]::ParameterName, 'The order''s amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00); compared exactly in kobo. Or --amount-kobo')
            [CompletionResult]::new('--amount-kobo', '--amount-kobo', [CompletionResultType]::ParameterName, 'The order''s amount in kobo (an integer)')
            [CompletionResult]::new('--expect-amount-kobo', '--expect-amount-kobo', [CompletionResultType]::ParameterName, 'The order''s amount in kobo (an integer)')
            [CompletionResult]::new('--merchant-ref', '--merchant-ref', [CompletionResultType]::ParameterName, 'The merchant reference the order was paid under, exactly (what the shop stored for it): a payment made for another order never passes')
            [CompletionResult]::new('--expect-merchant-ref', '--expect-merchant-ref', [CompletionResultType]::ParameterName, 'The merchant reference the order was paid under, exactly (what the shop stored for it): a payment made for another order never passes')
            [CompletionResult]::new('--currency', '--currency', [CompletionResultType]::ParameterName, 'The order''s currency (case-insensitive)')
            [CompletionResult]::new('--expect-currency', '--expect-currency', [CompletionResultType]::ParameterName, 'The order''s currency (case-insensitive)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Refused with its own message: a gate''s exit status is its one payment''s')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]')
            [CompletionResult]::new('--give-up-after', '--give-up-after', [CompletionResultType]::ParameterName, 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]')
            [CompletionResult]::new('--auth-style', '--auth-style', [CompletionResultType]::ParameterName, 'How the Authorization header carries the credentials [default: standard] [config: auth_style]')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]')
            [CompletionResult]::new('--expect-mode', '--expect-mode', [CompletionResultType]::ParameterName, 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N')
            [CompletionResult]::new('--hmac', '--hmac', [CompletionResultType]::ParameterName, 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed')
            [CompletionResult]::new('--tls', '--tls', [CompletionResultType]::ParameterName, 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;reconcile' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, one entry per row of the orders file. Given explicitly, it is written even with -q [default: table]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, one entry per row of the orders file. Given explicitly, it is written even with -q [default: table]')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'Continue an earlier reconciliation of this file: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). A row whose result there is final (anything but UNVERIFIED and NOT_FINAL), that is still the same row, and whose stored answer this run''s checks judge to the same result is not asked again: it is written in its place as a fresh row is. Write to a new file')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep the run''s memory in FILE, whatever -o is: each row, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: rows whose result there is final are carried as --resume carries them, and FILE then holds this run''s rows. Not stdout, an input or the --summary-json file')
            [CompletionResult]::new('--summary-json', '--summary-json', [CompletionResultType]::ParameterName, 'Also write the summary (rows and totals per result and currency, at risk, net difference) as JSON to FILE, written whole at the end; `-`, stdout, stderr, a file the run reads (the orders file) and a symlink are refused')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'For a scheduled run: exit non-zero only for rows of these classes (the most severe exit among them, else 0), verify''s class names; each result''s class is in the list of results below. Needs -o csv, jsonl or json, so every row still says what it came to. The summary line names the rows it left out [default: every row counts]')
            [CompletionResult]::new('--delimiter', '--delimiter', [CompletionResultType]::ParameterName, 'The column separator: `,`, `;` or `tab` [default: detected from the header line] [config: reconcile.delimiter]')
            [CompletionResult]::new('--header-row', '--header-row', [CompletionResultType]::ParameterName, 'The line of the header row [default: the first of the first 50 lines that names a reference and an amount column; title lines above it (at most 3 filled cells) are skipped] [config: reconcile.header_row]')
            [CompletionResult]::new('--reference-column', '--reference-column', [CompletionResultType]::ParameterName, 'The reference column [default: the first of reference, ref, transaction ref, payment reference, reference number, transaction id (WooCommerce), transaction reference, txn ref, payment ref, payment references (Shopify); never RRN] [config: reconcile.reference_column]')
            [CompletionResult]::new('--amount-column', '--amount-column', [CompletionResultType]::ParameterName, 'The expected amount column: the gross [default: the first of amount, expected amount, amount paid, total, order total, order total amount, transaction amount, total amount, grand total, gross amount, order amount; never settlement amount, which is net of fees] [config: reconcile.amount_column]')
            [CompletionResult]::new('--currency-column', '--currency-column', [CompletionResultType]::ParameterName, 'The currency column, its cells ISO 4217 codes: NGN or 566 [default: currency, currency code, order currency or transaction currency] [config: reconcile.currency_column]')
            [CompletionResult]::new('--merchant-ref-column', '--merchant-ref-column', [CompletionResultType]::ParameterName, 'The merchant reference column [default: merchant ref or merchant reference; an order id column is never guessed, as the gateway''s merchantRef usually only contains it] [config: reconcile.merchant_ref_column]')
            [CompletionResult]::new('--amount-unit', '--amount-unit', [CompletionResultType]::ParameterName, 'How amounts are written: naira (40000, 40000.5, 40,000.00, ₦40,000.00; exact, never rounded) or kobo (whole numbers) [default: naira] [config: reconcile.amount_unit]')
            [CompletionResult]::new('--currency', '--currency', [CompletionResultType]::ParameterName, 'The currency rows expect when the file has no currency column (or a row''s cell is empty: then said on stderr): an ISO 4217 code, NGN or 566 [default: NGN] [config: reconcile.currency]')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Reconcile only the rows whose COLUMN cell is PATTERN (the whole cell, case ignored, `*` for any text), such as --only "Order Date=2026-11-21*"; repeat it and a row must match each. COLUMN is a header name. The other rows are SKIPPED: listed, counted apart, never asked about')
            [CompletionResult]::new('--reference-pattern', '--reference-pattern', [CompletionResultType]::ParameterName, 'For a bank statement: take the reference out of the reference column''s text (its Remarks or Narration) with REGEX, the first capture group if it has one, else the whole match, such as --reference-pattern ''PWB3D[/ ]([0-9]+_[0-9]{10}(_[0-9]+)?)''. A row whose text does not match, and a debit row, is SKIPPED: not a gateway payment. Name the credits with --amount-column. Not with --resume or --state')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads for several references (they share one connection pool)')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service''s limit; with it, the pace adapts below N')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]')
            [CompletionResult]::new('--give-up-after', '--give-up-after', [CompletionResultType]::ParameterName, 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]')
            [CompletionResult]::new('--auth-style', '--auth-style', [CompletionResultType]::ParameterName, 'How the Authorization header carries the credentials [default: standard] [config: auth_style]')
            [CompletionResult]::new('--hmac', '--hmac', [CompletionResultType]::ParameterName, 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]')
            [CompletionResult]::new('--expect-mode', '--expect-mode', [CompletionResultType]::ParameterName, 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With the table: list every row, MATCHED ones too (the table shows at most 1000 rows; -o csv streams every one)')
            [CompletionResult]::new('--no-currency-column', '--no-currency-column', [CompletionResultType]::ParameterName, 'Read no currency column, even one found by its name: every row expects --currency [config: reconcile.no_currency_column]')
            [CompletionResult]::new('--bom', '--bom', [CompletionResultType]::ParameterName, 'With -o csv: start the output with a UTF-8 byte-order mark, so Excel on Windows reads it as UTF-8 (the naira sign, names) [default: when the input file has one]')
            [CompletionResult]::new('--no-bom', '--no-bom', [CompletionResultType]::ParameterName, 'With -o csv: no byte-order mark, even when the input file has one')
            [CompletionResult]::new('--sandbox', '--sandbox', [CompletionResultType]::ParameterName, 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed')
            [CompletionResult]::new('--tls', '--tls', [CompletionResultType]::ParameterName, 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;sandbox' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Port on 127.0.0.1 (0 picks a free one)')
            [CompletionResult]::new('--latency-ms', '--latency-ms', [CompletionResultType]::ParameterName, 'Milliseconds added to every response, to model a real network')
            [CompletionResult]::new('--tls-ca-out', '--tls-ca-out', [CompletionResultType]::ParameterName, 'Write the CA''s PEM here instead of a temporary file (which is removed on exit)')
            [CompletionResult]::new('--rate-limit', '--rate-limit', [CompletionResultType]::ParameterName, 'Throttle like a rate-limited gateway: a token bucket of N requests per second (50/s, 0.5/s, 600/m); a request that finds it empty gets --rate-limit-status. Change it while running: POST /sandbox/rate-limit?rate=20/s (rate=off lifts it); counts per second: GET /sandbox/stats')
            [CompletionResult]::new('--burst', '--burst', [CompletionResultType]::ParameterName, 'With --rate-limit: requests the bucket holds when full, the burst sent at once [default: one second''s worth]')
            [CompletionResult]::new('--rate-limit-status', '--rate-limit-status', [CompletionResultType]::ParameterName, 'With --rate-limit: the status of a throttled answer')
            [CompletionResult]::new('--retry-after', '--retry-after', [CompletionResultType]::ParameterName, 'With --rate-limit: the Retry-After of a throttled answer, whole seconds, or `none` to send none')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('--tls', '--tls', [CompletionResultType]::ParameterName, 'Serve HTTPS, with a certificate for 127.0.0.1, ::1 and localhost signed by a CA made at start; its PEM path is printed on the second line of stdout, for --ca-cert')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;doctor' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, '`text`: one line per check; `json`: one object for scripts and support tickets (never holding the secret)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, '`text`: one line per check; `json`: one object for scripts and support tickets (never holding the secret)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]')
            [CompletionResult]::new('--auth-style', '--auth-style', [CompletionResultType]::ParameterName, 'How the Authorization header carries the credentials [default: standard] [config: auth_style]')
            [CompletionResult]::new('--hmac', '--hmac', [CompletionResultType]::ParameterName, 'Check the response''s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]')
            [CompletionResult]::new('--expect-mode', '--expect-mode', [CompletionResultType]::ParameterName, 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample''s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]')
            [CompletionResult]::new('--give-up-after', '--give-up-after', [CompletionResultType]::ParameterName, 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]')
            [CompletionResult]::new('--client-id', '--client-id', [CompletionResultType]::ParameterName, 'Client id (the dashboard''s public key) [env: PAYVERIFY_CLIENT_ID]')
            [CompletionResult]::new('--client-secret-file', '--client-secret-file', [CompletionResultType]::ParameterName, 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file''s default_profile, else a profile named default]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\payverify\config\config.toml]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output; `auto` colours only a terminal and honours NO_COLOR')
            [CompletionResult]::new('--journal', '--journal', [CompletionResultType]::ParameterName, 'Keep the journal of every check here (an SQLite file) [env: PAYVERIFY_JOURNAL] [config: journal] [default: $XDG_DATA_HOME/payverify/journal.sqlite3; macOS ~/Library/Application Support/payverify/; Windows %APPDATA%\payverify\data\]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log each attempt (method, URL, status, time, retry decision) to stderr')
            [CompletionResult]::new('--no-journal', '--no-journal', [CompletionResultType]::ParameterName, 'Keep no journal this run: nothing is opened or made (PAYVERIFY_JOURNAL=off and journal = "off" in a profile do the same)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'payverify;help' {
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Check payloads the gateway signed, offline')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Inspect or create the config file')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show what the journal remembers: every check of a reference, oldest first, or (--changed) the payments whose answer changed between two checks')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) on stdout')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Verify a transaction by its reference and report its outcome')
            [CompletionResult]::new('gate', 'gate', [CompletionResultType]::ParameterValue, 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order''s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'Serve a local stand-in for the service, with magic references for testing scripts')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payverify;help;webhook' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret')
            break
        }
        'payverify;help;webhook;check' {
            break
        }
        'payverify;help;config' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file that would be used')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of the selected profile and where each comes from')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            break
        }
        'payverify;help;config;path' {
            break
        }
        'payverify;help;config;show' {
            break
        }
        'payverify;help;config;init' {
            break
        }
        'payverify;help;config;profiles' {
            break
        }
        'payverify;help;history' {
            break
        }
        'payverify;help;man' {
            break
        }
        'payverify;help;completions' {
            break
        }
        'payverify;help;verify' {
            break
        }
        'payverify;help;gate' {
            break
        }
        'payverify;help;reconcile' {
            break
        }
        'payverify;help;sandbox' {
            break
        }
        'payverify;help;doctor' {
            break
        }
        'payverify;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
