//! Where requests go and the credentials they carry, as the settings resolved them.

use std::path::PathBuf;

use crate::secret::Secret;
use crate::transport::base_url::BaseUrl;
use crate::transport::client::AuthStyle;
use crate::transport::proxy::ProxyUrl;

/// What a request needs: a validated base URL and a full set of credentials.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    /// Where to send requests.
    pub(crate) base_url: BaseUrl,
    pub(crate) client_id: String,
    pub(crate) client_secret: Secret,
    pub(crate) auth_style: AuthStyle,
    /// The proxy URL and where it came from.
    pub(crate) proxy: Option<ProxyUrl>,
    /// The environment's NO_PROXY list.
    pub(crate) no_proxy: Option<String>,
    /// Extra PEM root certificates.
    pub(crate) ca_cert: Option<PathBuf>,
}
