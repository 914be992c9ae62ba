//! HTTPS for the sandbox: a throwaway CA and a leaf certificate made at start.
//!
//! The CA's key lives only in this process and is dropped once the leaf is signed, so the
//! CA certificate a user is told to trust can never sign anything else.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The names the sandbox's certificate is valid for: every way to reach loopback.
pub const LOOPBACK_NAMES: [&str; 3] = ["127.0.0.1", "::1", "localhost"];

/// When the leaf certificate is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// From an hour ago for a week: the sandbox's own certificate.
    Current,
    /// Ended a day ago: for testing that clients refuse it.
    Expired,
}

/// A server certificate chain and key, and the PEM of the CA that signed it.
pub struct Identity {
    /// The throwaway CA certificate, PEM: what a client must trust (`--ca-cert`).
    pub ca_pem: String,
    /// The server side of rustls, ready for connections.
    pub config: Arc<ServerConfig>,
}

impl Identity {
    /// A new CA and a leaf for `names` (DNS names or IP literals), valid as `validity` says.
    pub fn generate(names: &[&str], validity: Validity) -> Result<Identity, String> {
        let now = SystemTime::now();
        let hour = Duration::from_secs(3600);
        let (not_before, not_after) = match validity {
            Validity::Current => (now - hour, now + 24 * 7 * hour),
            Validity::Expired => (now - 24 * 30 * hour, now - 24 * hour),
        };
        let fail = |e: rcgen::Error| format!("cannot make the sandbox certificate: {e}");

        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca.distinguished_name
            .push(DnType::CommonName, "payverify sandbox throwaway CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        ca.not_before = (now - hour).into();
        ca.not_after = (now + 24 * 7 * hour).into();
        let ca_key = KeyPair::generate().map_err(fail)?;
        let ca_cert = ca.self_signed(&ca_key).map_err(fail)?;
        let issuer = Issuer::new(ca, ca_key);

        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut leaf = CertificateParams::new(names).map_err(fail)?;
        leaf.distinguished_name
            .push(DnType::CommonName, "payverify sandbox");
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        leaf.not_before = not_before.into();
        leaf.not_after = not_after.into();
        let leaf_key = KeyPair::generate().map_err(fail)?;
        let leaf_cert = leaf.signed_by(&leaf_key, &issuer).map_err(fail)?;

        let chain: Vec<CertificateDer<'static>> = vec![leaf_cert.der().clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
            .map_err(|e| format!("cannot set up TLS for the sandbox: {e}"))?;
        Ok(Identity {
            ca_pem: ca_cert.pem(),
            config: Arc::new(config),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ca_pem_is_one_certificate() {
        let identity = Identity::generate(&LOOPBACK_NAMES, Validity::Current).unwrap();
        assert!(identity.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(identity.ca_pem.matches("BEGIN CERTIFICATE").count(), 1);
    }
}
