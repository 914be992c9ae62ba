# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_payverify_global_optspecs
    string join \n base-url= client-id= client-secret-file= profile= config= color= v/verbose q/quiet h/help V/version
end

function __fish_payverify_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_payverify_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_payverify_using_subcommand
    set -l cmd (__fish_payverify_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c payverify -n "__fish_payverify_needs_command" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_needs_command" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_needs_command" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_needs_command" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_needs_command" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_needs_command" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_needs_command" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_needs_command" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_needs_command" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "webhook" -d 'Check payloads the gateway signed, offline'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "config" -d 'Inspect or create the config file'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "man" -d 'Print the man page (roff) on stdout'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "verify" -d 'Verify a transaction by its reference and report its outcome'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "gate" -d 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order\'s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "reconcile" -d 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "sandbox" -d 'Serve a local stand-in for the service, with magic references for testing scripts'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "doctor" -d 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret'
complete -c payverify -n "__fish_payverify_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l expect-amount -l amount -d 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate\'s name for it' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l expect-amount-kobo -l amount-kobo -d 'Expected amount in kobo (an integer)' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l expect-currency -l currency -d 'Expected currency code, e.g. NGN (case-insensitive)' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l expect-merchant-ref -l merchant-ref -d 'Expected merchant reference (exact: nothing is trimmed)' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l expect-mode -d 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample\'s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
complete -c payverify -n "__fish_payverify_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -f -a "path" -d 'Print the config file that would be used'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -f -a "show" -d 'Print the effective settings of the selected profile and where each comes from'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -f -a "init" -d 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -f -a "profiles" -d 'List the profiles, marking the default'
complete -c payverify -n "__fish_payverify_using_subcommand config; and not __fish_seen_subcommand_from path show init profiles help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from path" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -s o -l output -d '`text`: a table of key, value and source; `json`: one object for scripts, with the same values and sources and every problem (never the secret)' -r -f -a "text\t'A table: key, value, where it came from, and a mark on each line with a problem'
json\t'One JSON object: `ok`, `exit`, `config`, `profile`, `settings` (each key\'s value and source), `problems`, `warnings`'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -l force -d 'Replace the profile if the file already has one of that name (the others are kept)'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from init" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -l names -d 'Only the names, one a line, nothing else on stdout or stderr, exit 0 even without a readable config file (what shell completion of --profile calls)'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from profiles" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the config file that would be used'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the effective settings of the selected profile and where each comes from'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "init" -d 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "profiles" -d 'List the profiles, marking the default'
complete -c payverify -n "__fish_payverify_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand man" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand man" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand man" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand man" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand man" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand man" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand man" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand man" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand man" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand completions" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand completions" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand completions" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand completions" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l from -d 'Read references from FILE, one per line, each exactly as written: only the spaces, tabs and CR around it are taken off. A blank line is an empty reference (refused, exit 2) and a line starting with # is a reference like any other, unless --comments is given (a customer\'s reference can start with #)' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s o -l output -d 'Output format. One reference: table or the service\'s JSON object. Several: one record per reference (json is one array of the jsonl records). Given explicitly, it is written even with -q [default: table]' -r -f -a "table\t'A field/value table for people'
json\t'The service\'s JSON object exactly as received, pretty-printed (several references: one array of records)'
jsonl\t'One JSON record per reference per line'
csv\t'A header row, then one row per reference (RFC 4180 quoting)'
xlsx\t'An Excel workbook, to a file or pipe (not a terminal): a Summary sheet (the count per outcome), the records that need a look, every record; amounts as numbers in naira, dates as dates'"
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l resume -d 'Continue an earlier run: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). References whose record there is a final answer, decided by the same checks as this run\'s (the same payverify, expectations, --hmac and --expect-mode), are not asked again: the record is carried as it was decided and written in its place as a fresh record is; the rest are asked. Write to a new file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l state -d 'Keep the run\'s memory in FILE, whatever -o is: each record, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: references whose record there is a final answer are carried as --resume carries them, and FILE then holds this run\'s records. It makes a run a batch, even of one reference: `verify REF --state FILE` writes the batch table (one row; -o json, an array of one record) and a summary line on stderr, not REF\'s own table. Not stdout, an input or the --summary-json file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l fail-on -d 'For a scheduled batch: exit non-zero only for records of these outcome classes (the worst exit among them, else 0), so a declined card does not page anyone; the classes and their outcomes are listed below. Needs a batch (--from, -, or several references) and -o csv, jsonl or json; refused for one reference argument and for gate. The summary line names the records it left out [default: every record counts]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s j -l jobs -d 'Worker threads for several references (they share one connection pool)' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l rate -d 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service\'s limit; with it, the pace adapts below N' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l timeout -d 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l retries -d 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l wait -d 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l give-up-after -d 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l auth-style -d 'How the Authorization header carries the credentials [default: standard] [config: auth_style]' -r -f -a "standard\t'`Basic base64(id:secret)`, RFC 7617, as the gateway\'s own integrations send'
literal\t'`Basic id:secret` unencoded, as the interface document literally writes it'"
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l hmac -d 'Check the response\'s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]' -r -f -a "off\t'Do not check it'
warn\t'Check it; a mismatch or a missing hmac is a warning on stderr'
require\t'Check it; a mismatch or a missing hmac fails the verification (exit 4)'"
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l proxy -d 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l ca-cert -d 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l expect-mode -d 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample\'s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l expect-amount -l amount -d 'Expected amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00, NGN 40000); compared exactly in kobo, never rounded. `--amount` is gate\'s name for it' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l expect-amount-kobo -l amount-kobo -d 'Expected amount in kobo (an integer)' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l expect-currency -l currency -d 'Expected currency code, e.g. NGN (case-insensitive)' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l expect-merchant-ref -l merchant-ref -d 'Expected merchant reference (exact: nothing is trimmed)' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l comments -d 'The lists (--from, -) are written by hand: skip blank lines and lines starting with #. Without it, every line is a reference as a customer gave it, and none is dropped without a word'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l sandbox -d 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -l tls -d 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand verify" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l amount -l expect-amount -d 'The order\'s amount in naira, at most two decimals (40000, 40000.50, 40,000, ₦40,000.00); compared exactly in kobo. Or --amount-kobo' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l amount-kobo -l expect-amount-kobo -d 'The order\'s amount in kobo (an integer)' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l merchant-ref -l expect-merchant-ref -d 'The merchant reference the order was paid under, exactly (what the shop stored for it): a payment made for another order never passes' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l currency -l expect-currency -d 'The order\'s currency (case-insensitive)' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l fail-on -d 'Refused with its own message: a gate\'s exit status is its one payment\'s' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l timeout -d 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l retries -d 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l wait -d 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l give-up-after -d 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l auth-style -d 'How the Authorization header carries the credentials [default: standard] [config: auth_style]' -r -f -a "standard\t'`Basic base64(id:secret)`, RFC 7617, as the gateway\'s own integrations send'
literal\t'`Basic id:secret` unencoded, as the interface document literally writes it'"
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l proxy -d 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l ca-cert -d 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l expect-mode -d 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample\'s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -s j -l jobs -d 'Worker threads for several references (they share one connection pool)' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l rate -d 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service\'s limit; with it, the pace adapts below N' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l hmac -d 'Check the response\'s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]' -r -f -a "off\t'Do not check it'
warn\t'Check it; a mismatch or a missing hmac is a warning on stderr'
require\t'Check it; a mismatch or a missing hmac fails the verification (exit 4)'"
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l sandbox -d 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -l tls -d 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand gate" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s o -l output -d 'Output format, one entry per row of the orders file. Given explicitly, it is written even with -q [default: table]' -r -f -a "table\t'The rows that need a look (every row but a clean MATCHED, a line item or a totals row that adds up; every row with --all), led by the order id, with their checks; at most 1000; the totals go to stderr'
json\t'One array of the jsonl records'
jsonl\t'One JSON record per row per line: line, the row\'s cells, result, difference_kobo, gateway_status, gateway_code, gateway_amount_kobo, expected_amount_kobo, gateway_currency, checks, error, the service\'s response, seal'
csv\t'Every row: its own columns, then result, difference_kobo, difference_naira, gateway_status, gateway_code, gateway_amount_kobo, gateway_amount_naira, expected_amount_kobo, expected_amount_naira, gateway_currency, checks, error (RFC 4180 quoting; a UTF-8 BOM first with --bom, or when the input has one)'
xlsx\t'An Excel workbook, to a file or pipe (not a terminal): a Summary sheet (rows and totals per result and currency), the rows that need a look, every row (its own columns as they were, then the result\'s); amounts as numbers, dates as dates'"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l resume -d 'Continue an earlier reconciliation of this file: FILE is its -o jsonl output, complete or cut short (for another -o, see --state). A row whose result there is final (anything but UNVERIFIED and NOT_FINAL), that is still the same row, and whose stored answer this run\'s checks judge to the same result is not asked again: it is written in its place as a fresh row is. Write to a new file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l state -d 'Keep the run\'s memory in FILE, whatever -o is: each row, sealed as an -o jsonl line is, is written to FILE as it is decided, so a run stopped, killed or cut short by `| head` keeps what it decided. Run again with the same --state: rows whose result there is final are carried as --resume carries them, and FILE then holds this run\'s rows. Not stdout, an input or the --summary-json file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l summary-json -d 'Also write the summary (rows and totals per result and currency, at risk, net difference) as JSON to FILE, written whole at the end; `-`, stdout, stderr, a file the run reads (the orders file) and a symlink are refused' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l fail-on -d 'For a scheduled run: exit non-zero only for rows of these classes (the most severe exit among them, else 0), verify\'s class names; each result\'s class is in the list of results below. Needs -o csv, jsonl or json, so every row still says what it came to. The summary line names the rows it left out [default: every row counts]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l delimiter -d 'The column separator: `,`, `;` or `tab` [default: detected from the header line] [config: reconcile.delimiter]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l header-row -d 'The line of the header row [default: the first of the first 50 lines that names a reference and an amount column; title lines above it (at most 3 filled cells) are skipped] [config: reconcile.header_row]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l reference-column -d 'The reference column [default: the first of reference, ref, transaction ref, payment reference, reference number, transaction id (WooCommerce), transaction reference, txn ref, payment ref, payment references (Shopify); never RRN] [config: reconcile.reference_column]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l amount-column -d 'The expected amount column: the gross [default: the first of amount, expected amount, amount paid, total, order total, order total amount, transaction amount, total amount, grand total, gross amount, order amount; never settlement amount, which is net of fees] [config: reconcile.amount_column]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l currency-column -d 'The currency column, its cells ISO 4217 codes: NGN or 566 [default: currency, currency code, order currency or transaction currency] [config: reconcile.currency_column]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l merchant-ref-column -d 'The merchant reference column [default: merchant ref or merchant reference; an order id column is never guessed, as the gateway\'s merchantRef usually only contains it] [config: reconcile.merchant_ref_column]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l amount-unit -d 'How amounts are written: naira (40000, 40000.5, 40,000.00, ₦40,000.00; exact, never rounded) or kobo (whole numbers) [default: naira] [config: reconcile.amount_unit]' -r -f -a "naira\t'Naira, exact to the kobo: 40000, 40000.5, 40,000.00, ₦40,000.00'
kobo\t'Kobo, whole numbers only: 4000000'"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l currency -d 'The currency rows expect when the file has no currency column (or a row\'s cell is empty: then said on stderr): an ISO 4217 code, NGN or 566 [default: NGN] [config: reconcile.currency]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l only -d 'Reconcile only the rows whose COLUMN cell is PATTERN (the whole cell, case ignored, `*` for any text), such as --only "Order Date=2026-11-21*"; repeat it and a row must match each. COLUMN is a header name. The other rows are SKIPPED: listed, counted apart, never asked about' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s j -l jobs -d 'Worker threads for several references (they share one connection pool)' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l rate -d 'At most N requests per second across all workers (decimals allowed). Without it the pace adapts: unpaced until the service throttles (429, 503), then it follows the service\'s limit; with it, the pace adapts below N' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l timeout -d 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l retries -d 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l wait -d 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l give-up-after -d 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l auth-style -d 'How the Authorization header carries the credentials [default: standard] [config: auth_style]' -r -f -a "standard\t'`Basic base64(id:secret)`, RFC 7617, as the gateway\'s own integrations send'
literal\t'`Basic id:secret` unencoded, as the interface document literally writes it'"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l hmac -d 'Check the response\'s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]' -r -f -a "off\t'Do not check it'
warn\t'Check it; a mismatch or a missing hmac is a warning on stderr'
require\t'Check it; a mismatch or a missing hmac fails the verification (exit 4)'"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l proxy -d 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l ca-cert -d 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l expect-mode -d 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample\'s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l all -d 'With the table: list every row, MATCHED ones too (the table shows at most 1000 rows; -o csv streams every one)'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l no-currency-column -d 'Read no currency column, even one found by its name: every row expects --currency [config: reconcile.no_currency_column]'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l bom -d 'With -o csv: start the output with a UTF-8 byte-order mark, so Excel on Windows reads it as UTF-8 (the naira sign, names) [default: when the input file has one]'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l no-bom -d 'With -o csv: no byte-order mark, even when the input file has one'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l sandbox -d 'Verify against a sandbox started in-process on a free loopback port, with the sandbox credentials; configured credentials and base URL are ignored. No account needed'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -l tls -d 'With --sandbox: it speaks HTTPS, and its throwaway CA is trusted in memory, so the verification goes through a real TLS handshake'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand reconcile" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l port -d 'Port on 127.0.0.1 (0 picks a free one)' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l latency-ms -d 'Milliseconds added to every response, to model a real network' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l tls-ca-out -d 'Write the CA\'s PEM here instead of a temporary file (which is removed on exit)' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l rate-limit -d 'Throttle like a rate-limited gateway: a token bucket of N requests per second (50/s, 0.5/s, 600/m); a request that finds it empty gets --rate-limit-status. Change it while running: POST /sandbox/rate-limit?rate=20/s (rate=off lifts it); counts per second: GET /sandbox/stats' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l burst -d 'With --rate-limit: requests the bucket holds when full, the burst sent at once [default: one second\'s worth]' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l rate-limit-status -d 'With --rate-limit: the status of a throttled answer' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l retry-after -d 'With --rate-limit: the Retry-After of a throttled answer, whole seconds, or `none` to send none' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -l tls -d 'Serve HTTPS, with a certificate for 127.0.0.1, ::1 and localhost signed by a CA made at start; its PEM path is printed on the second line of stdout, for --ca-cert'
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand sandbox" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -s o -l output -d '`text`: one line per check; `json`: one object for scripts and support tickets (never holding the secret)' -r -f -a "text\t'One line per check: its name, ok/warn/FAIL, what was found and the fix'
json\t'One JSON object: the checks, each with its details, and the exit status'"
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l timeout -d 'How long each attempt may take, connect to last byte: seconds (30, 2.5) or a duration (30s, 500ms, 1m) [default: 30s] [config: timeout]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l auth-style -d 'How the Authorization header carries the credentials [default: standard] [config: auth_style]' -r -f -a "standard\t'`Basic base64(id:secret)`, RFC 7617, as the gateway\'s own integrations send'
literal\t'`Basic id:secret` unencoded, as the interface document literally writes it'"
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l hmac -d 'Check the response\'s hmac: `warn` on a mismatch or a missing hmac, `require` it (exit 4), or `off` [default: warn] [config: hmac]' -r -f -a "off\t'Do not check it'
warn\t'Check it; a mismatch or a missing hmac is a warning on stderr'
require\t'Check it; a mismatch or a missing hmac fails the verification (exit 4)'"
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l proxy -d 'Send requests through this proxy [default: https_proxy, all_proxy or http_proxy from the environment, minus NO_PROXY] [config: proxy]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l ca-cert -d 'Also trust the root certificates in this PEM file, e.g. a corporate TLS-inspection CA [config: ca_cert]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l expect-mode -d 'Expected `mode` of the transaction, exactly (e.g. live): an answer of another mode, or none, fails the checks (exit 4). The interface documents only dev, its test sample\'s; `payverify doctor REFERENCE` shows the mode a real payment carries [config: expect_mode]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l retries -d 'Retries after the first attempt, for failures: network errors, timeouts and 500/502/504. Throttled answers (429, 503) never use them up: see --give-up-after [default: 2] [config: retries]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l wait -d 'Ask a not-final (e.g. PENDING) transaction again until it is final or this long has passed: 90s, 5m, 1h 30m, or seconds (0: do not wait). A check that gets no answer (throttled, failed, whatever --retries) keeps the answer in hand and the wait goes on [default: 0] [config: wait]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l give-up-after -d 'How long a reference the service keeps throttling (429, 503) is asked again, paced, from its first request, before it is given up as UNAVAILABLE (exit 7); with --wait, whichever ends first. e.g. 90s, 5m, 1h (0: do not ask a throttled reference again) [default: 10m] [config: give_up_after]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l base-url -d 'Base URL of the service, e.g. https://paywithbank3d.com [env: PAYVERIFY_BASE_URL]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l client-id -d 'Client id (the dashboard\'s public key) [env: PAYVERIFY_CLIENT_ID]' -r
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l client-secret-file -d 'Read the client secret from this file. There is no --client-secret flag on purpose: argv is visible to every user. Use this, PAYVERIFY_CLIENT_SECRET, or the config file' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l profile -d 'Config profile to use [env: PAYVERIFY_PROFILE] [default: the file\'s default_profile, else a profile named default]' -r -f -a "(payverify config profiles --names 2>/dev/null)"
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l config -d 'Config file [env: PAYVERIFY_CONFIG] [default: $XDG_CONFIG_HOME/payverify/config.toml; macOS ~/Library/Application Support/payverify/config.toml; Windows %APPDATA%\\payverify\\config\\config.toml]' -r -F
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -l color -d 'When to colour output; `auto` colours only a terminal and honours NO_COLOR' -r -f -a "auto\t'Colour when stdout is a terminal and NO_COLOR is unset'
always\t'Always colour'
never\t'Never colour'"
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -s v -l verbose -d 'Log each attempt (method, URL, status, time, retry decision) to stderr'
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -s q -l quiet -d 'Print nothing on stderr and no default table: the exit status is the answer. An explicit -o still writes its data on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payverify -n "__fish_payverify_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "webhook" -d 'Check payloads the gateway signed, offline'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "config" -d 'Inspect or create the config file'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "man" -d 'Print the man page (roff) on stdout'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "verify" -d 'Verify a transaction by its reference and report its outcome'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "gate" -d 'Gate an order on a payment: exit 0 only for a SUCCESSFUL payment with code 00 and a genuine hmac, of this order\'s amount, currency and merchant reference, in the mode the profile expects. Nothing on stdout; on stderr, why not'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "reconcile" -d 'Check an orders or settlement file (CSV) row by row against the gateway: each row MATCHED, UNDERPAID, OVERPAID, ... with totals per result and one exit status'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "sandbox" -d 'Serve a local stand-in for the service, with magic references for testing scripts'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "doctor" -d 'Check the set-up step by step (config, settings, base URL, name resolution, connection, TLS, credentials) and, given a REFERENCE, whether its hmac verifies under the configured secret'
complete -c payverify -n "__fish_payverify_using_subcommand help; and not __fish_seen_subcommand_from webhook config man completions verify gate reconcile sandbox doctor help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payverify -n "__fish_payverify_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "check" -d 'Check a webhook body or saved verify response with the client secret, offline. Exit 0 only when the hmac is genuine and the payment is SUCCESSFUL with code 00 and a paymentDate and every --expect-* holds; 1 genuine FAILED; 9 genuine but not final; 4 hmac missing or mismatched (or a failed check); 8 malformed; 6 no secret'
complete -c payverify -n "__fish_payverify_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the config file that would be used'
complete -c payverify -n "__fish_payverify_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the effective settings of the selected profile and where each comes from'
complete -c payverify -n "__fish_payverify_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "init" -d 'Write a commented config file (mode 0600) with one profile, taking --profile, --base-url, --client-id and --client-secret-file; on an existing file, add the profile and keep the rest of the file as it is'
complete -c payverify -n "__fish_payverify_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "profiles" -d 'List the profiles, marking the default'
