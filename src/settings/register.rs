//! Every client secret and URL credential the settings could name, registered for
//! redaction before anything is validated: a message on the way to refusing one must not
//! show it.

use std::path::PathBuf;

use super::{Context, Flags, Settings, env, file, proxy_env, secret_source};

impl Settings {
    /// Registers for redaction every client secret known without resolving anything (the
    /// environment, `--client-secret-file`, the config file's profiles): for a command
    /// that may quote its input in an error before its settings are resolved.
    pub(crate) fn register_secrets(flags: &Flags, ctx: &Context) {
        let config = ctx.config_location(flags.config.as_ref());
        let text = config.and_then(|location| file::read(&location).ok().flatten());
        Settings::register_known(flags, ctx, text.as_deref());
    }

    /// Registers every client secret known without running a command (the environment's,
    /// the `--client-secret-file` file's, and each profile's `client_secret` and
    /// `client_secret_file` in the config text, parsed leniently so even a file that fails
    /// validation is covered), and the credentials of every base URL and proxy URL they or
    /// the flags name. Called before any setting is validated: no validation message (a
    /// base URL, a profile name, an unknown key: a secret can be pasted anywhere) can print
    /// one of them. Nothing here fails: the real reads report problems.
    pub(super) fn register_known(flags: &Flags, ctx: &Context, config_text: Option<&str>) {
        let from_env = proxy_env::ENV_PROXY
            .iter()
            .filter_map(|name| (ctx.env)(name));
        let profiles: Vec<toml::Value> = config_text
            .and_then(|text| toml::from_str::<toml::Table>(text).ok())
            .and_then(|table| table.get("profiles")?.as_table().cloned())
            .into_iter()
            .flat_map(|profiles| profiles.into_iter().map(|(_, profile)| profile))
            .collect();
        let from_file = |key: &'static str| {
            profiles
                .iter()
                .filter_map(move |profile| profile.get(key)?.as_str().map(str::to_owned))
        };
        for value in (ctx.env)(env::CLIENT_SECRET)
            .into_iter()
            .chain(from_file("client_secret"))
        {
            crate::secret::register_client_secret(value.trim());
        }
        // Read as the secret is read (bounded, regular files only); what cannot be read here
        // fails where the secret is read.
        let secret_files = (flags.client_secret_file.iter().cloned())
            .chain(from_file("client_secret_file").map(PathBuf::from));
        for path in secret_files {
            if let Ok(text) = crate::files::read_text(&path, &crate::files::SECRET_FILE) {
                crate::secret::register_client_secret(secret_source::file_secret(&text));
            }
        }
        // A base URL with credentials in it is refused, but its password must not reach a
        // message on the way there (whatever the message quotes of the URL).
        let base_urls = (flags.base_url.iter().cloned())
            .chain((ctx.env)(env::BASE_URL))
            .chain(from_file("base_url"));
        let proxies = (flags.proxy.iter().cloned())
            .chain(from_env)
            .chain(from_file("proxy"));
        for url in base_urls.chain(proxies) {
            crate::transport::userinfo::register(&url);
        }
        // A key that names a file or a program, holding what could be a secret instead.
        let paths = (flags.client_secret_file.iter())
            .chain(flags.ca_cert.iter())
            .map(|path| path.to_string_lossy().into_owned())
            .chain(from_file("client_secret_file"))
            .chain(from_file("ca_cert"));
        for path in paths {
            secret_source::register_unproven_paths(&path, secret_source::Names::File, ctx.env);
        }
        for command in profiles
            .iter()
            .filter_map(|p| p.get("client_secret_command"))
        {
            secret_source::register_unproven_command(command, ctx.env);
        }
    }
}
