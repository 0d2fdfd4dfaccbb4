//! One worker's HTTP side: a request's first path segment names its tenant, the rest is the
//! path its handler sees; the handler's answer (or why there is none) is the response.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::rc::Rc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use runtime_core::serve::{ServeError, Server};

/// The largest request body read (larger: 413).
pub const MAX_BODY: usize = 1 << 20;

/// What a tenant's handler is called with.
#[derive(runtime_core::ToV8)]
pub struct TenantRequest {
    method: String,
    /// The path after the tenant's segment (`/` at least), with its query.
    path: String,
    headers: BTreeMap<String, String>,
    body: String,
}

/// What it answers.
#[derive(runtime_core::FromV8)]
pub struct TenantResponse {
    status: u16,
    headers: Option<BTreeMap<String, String>>,
    body: Option<String>,
}

/// The servers of one worker's runtimes, by tenant.
pub type Servers = Rc<HashMap<String, Server>>;

/// Answers one request.
pub async fn answer(
    servers: Servers,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let (tenant, path) = split_tenant(path_and_query);
    let tenant = tenant.to_owned();
    let Some(server) = servers.get(&tenant) else {
        return Ok(text(
            StatusCode::NOT_FOUND,
            format!("no tenant {tenant:?}\n"),
        ));
    };
    let Ok(body) = Limited::new(body, MAX_BODY).collect().await else {
        return Ok(text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body too large\n".into(),
        ));
    };
    let request = TenantRequest {
        method: parts.method.to_string(),
        path,
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.to_string(), value)
            })
            .collect(),
        body: String::from_utf8_lossy(&body.to_bytes()).into_owned(),
    };
    Ok(match server.call::<TenantResponse>((request,)).await {
        Ok(answer) => respond(&tenant, answer),
        Err(error) => {
            eprintln!("[{tenant}] {error}");
            let status = match &error {
                ServeError::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
                ServeError::TimedOut => StatusCode::GATEWAY_TIMEOUT,
                ServeError::NoRuntime(_) => StatusCode::BAD_GATEWAY,
                ServeError::Terminated { .. } | ServeError::Failed(_) => {
                    StatusCode::INTERNAL_SERVER_ERROR
                }
            };
            // The error is the tenant's own, in its own URLs: it may see it.
            text(status, format!("{error}\n"))
        }
    })
}

/// `/name/rest?query` → (`name`, `/rest?query`).
fn split_tenant(path: &str) -> (&str, String) {
    let path = path.strip_prefix('/').unwrap_or(path);
    let end = path.find(['/', '?']).unwrap_or(path.len());
    let (name, rest) = path.split_at(end);
    match rest.strip_prefix('/') {
        Some(_) => (name, rest.to_owned()),
        None => (name, format!("/{rest}")),
    }
}

fn respond(tenant: &str, answer: TenantResponse) -> Response<Full<Bytes>> {
    let mut response = Response::builder().status(answer.status);
    for (name, value) in answer.headers.iter().flatten() {
        response = response.header(name, value);
    }
    response
        .body(Full::new(Bytes::from(answer.body.unwrap_or_default())))
        .unwrap_or_else(|error| {
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("tenant {tenant} answered a response that is not HTTP: {error}\n"),
            )
        })
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_segment_names_the_tenant() {
        let split = |path| {
            let (name, rest) = super::split_tenant(path);
            (name.to_owned(), rest)
        };
        assert_eq!(split("/hello/bob"), ("hello".into(), "/bob".into()));
        assert_eq!(split("/hello"), ("hello".into(), "/".into()));
        assert_eq!(split("/hello?x=1"), ("hello".into(), "/?x=1".into()));
        assert_eq!(split("/hello/a?x=1"), ("hello".into(), "/a?x=1".into()));
    }
}
