//! TLS for [`super::HttpClient`]'s `https:` origins: rustls on ring, trusting the system's root
//! certificates (read once per client, at its first `https:` request, off the runtime's thread;
//! again at the next if that failed) or exactly the roots its host gives. It speaks HTTP/1.1
//! only, and says so in ALPN.

use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// The roots a client trusts, and the config made from them at first use (shared by the
/// client's clones).
#[derive(Clone, Debug, Default)]
pub(super) struct ClientTls {
    /// `None`: the system's.
    given: Option<Arc<RootCertStore>>,
    /// Kept once made: a failure to read the system's roots is not (a descriptor short once
    /// would fail every later request).
    config: Arc<OnceLock<Arc<ClientConfig>>>,
}

impl ClientTls {
    /// Trusting exactly the certificates of `pem` (one `CERTIFICATE` block or more).
    pub(super) fn with_roots(pem: &[u8]) -> Result<Self, String> {
        let mut roots = RootCertStore::empty();
        for certificate in CertificateDer::pem_slice_iter(pem) {
            let certificate =
                certificate.map_err(|error| format!("a root certificate's PEM: {error}"))?;
            roots
                .add(certificate)
                .map_err(|error| format!("a root certificate: {error}"))?;
        }
        if roots.is_empty() {
            return Err("no certificate in the PEM given".to_owned());
        }
        Ok(Self {
            given: Some(Arc::new(roots)),
            config: Arc::default(),
        })
    }

    /// `stream`, to `host` (a DNS name or an IP address), in TLS: the server's certificate
    /// verified against the roots for that name.
    pub(super) async fn connect(
        &self,
        host: &str,
        stream: TcpStream,
    ) -> Result<TlsStream<TcpStream>, String> {
        let config = self.config().await?;
        let name = ServerName::try_from(host.to_owned())
            .map_err(|_| format!("{host} is no name TLS can verify"))?;
        tokio_rustls::TlsConnector::from(config)
            .connect(name, stream)
            .await
            .map_err(|error| format!("TLS with {host} failed: {error}"))
    }

    async fn config(&self) -> Result<Arc<ClientConfig>, String> {
        if let Some(config) = self.config.get() {
            return Ok(config.clone());
        }
        let roots = match &self.given {
            Some(given) => RootCertStore::clone(given),
            // Files read and parsed: not on the thread that runs JavaScript.
            None => tokio::task::spawn_blocking(system_roots)
                .await
                .map_err(|error| format!("reading the system's root certificates: {error}"))??,
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|error| error.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(self.config.get_or_init(|| Arc::new(config)).clone())
    }
}

/// The system's root certificates (those it cannot parse left out).
fn system_roots() -> Result<RootCertStore, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        return Err(format!(
            "no system root certificates ({} errors reading them)",
            found.errors.len()
        ));
    }
    Ok(roots)
}
