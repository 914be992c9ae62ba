//! Any text as a config file: parsed or refused with one line, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match payverify::parse_config(text, Path::new("fuzz.toml")) {
        Ok(config) => {
            for profile in config.profiles.values().flatten() {
                if let Some(spec) = &profile.client_secret_command {
                    let _ = spec.argv();
                }
                if let Some(url) = &profile.base_url {
                    let _ = payverify::BaseUrl::parse(url);
                }
            }
        }
        Err(failure) => assert!(!failure.message.contains('\n')),
    }
});
