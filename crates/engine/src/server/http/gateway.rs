//! etcd's JSON gateway (grpc-gateway's mapping as etcd serves it): `POST
//! /v3/...` with a JSON body in proto field names (64-bit integers as
//! strings, bytes as base64) is passed to the same gRPC method in-process,
//! with its `Authorization` header as the token; the answer comes back as
//! JSON without default fields, errors as `{"error","message","code"}` with
//! grpc-gateway's HTTP status, streams (watch, keep-alive, snapshot) as one
//! `{"result":…}` object per line.

use std::sync::LazyLock;
use std::task::Poll;

use futures_util::StreamExt;
use http::{header, HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::{Body as _, Frame};
use http_body_util::BodyExt;
use prost::bytes::{Buf, Bytes, BytesMut};
use prost::Message;
use prost_reflect::{
    DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor, MethodDescriptor,
    SerializeOptions,
};
use tonic::body::Body;

/// The largest request body read (etcd's client request limit plus room for JSON and base64).
const MAX_BODY: usize = 8 << 20;

/// Every path served, with the gRPC service and method behind it (etcd's
/// `google.api.http` bindings, additional bindings included).
const ROUTES: &[(&str, &str, &str)] = &[
    ("/v3/kv/range", "etcdserverpb.KV", "Range"),
    ("/v3/kv/put", "etcdserverpb.KV", "Put"),
    ("/v3/kv/deleterange", "etcdserverpb.KV", "DeleteRange"),
    ("/v3/kv/txn", "etcdserverpb.KV", "Txn"),
    ("/v3/kv/compaction", "etcdserverpb.KV", "Compact"),
    ("/v3/watch", "etcdserverpb.Watch", "Watch"),
    ("/v3/lease/grant", "etcdserverpb.Lease", "LeaseGrant"),
    ("/v3/lease/revoke", "etcdserverpb.Lease", "LeaseRevoke"),
    ("/v3/kv/lease/revoke", "etcdserverpb.Lease", "LeaseRevoke"),
    (
        "/v3/lease/keepalive",
        "etcdserverpb.Lease",
        "LeaseKeepAlive",
    ),
    (
        "/v3/lease/timetolive",
        "etcdserverpb.Lease",
        "LeaseTimeToLive",
    ),
    (
        "/v3/kv/lease/timetolive",
        "etcdserverpb.Lease",
        "LeaseTimeToLive",
    ),
    ("/v3/lease/leases", "etcdserverpb.Lease", "LeaseLeases"),
    ("/v3/kv/lease/leases", "etcdserverpb.Lease", "LeaseLeases"),
    (
        "/v3/cluster/member/add",
        "etcdserverpb.Cluster",
        "MemberAdd",
    ),
    (
        "/v3/cluster/member/remove",
        "etcdserverpb.Cluster",
        "MemberRemove",
    ),
    (
        "/v3/cluster/member/update",
        "etcdserverpb.Cluster",
        "MemberUpdate",
    ),
    (
        "/v3/cluster/member/list",
        "etcdserverpb.Cluster",
        "MemberList",
    ),
    (
        "/v3/cluster/member/promote",
        "etcdserverpb.Cluster",
        "MemberPromote",
    ),
    ("/v3/maintenance/alarm", "etcdserverpb.Maintenance", "Alarm"),
    (
        "/v3/maintenance/status",
        "etcdserverpb.Maintenance",
        "Status",
    ),
    (
        "/v3/maintenance/defragment",
        "etcdserverpb.Maintenance",
        "Defragment",
    ),
    ("/v3/maintenance/hash", "etcdserverpb.Maintenance", "Hash"),
    (
        "/v3/maintenance/hashkv",
        "etcdserverpb.Maintenance",
        "HashKV",
    ),
    (
        "/v3/maintenance/snapshot",
        "etcdserverpb.Maintenance",
        "Snapshot",
    ),
    (
        "/v3/maintenance/transfer-leadership",
        "etcdserverpb.Maintenance",
        "MoveLeader",
    ),
    ("/v3/auth/enable", "etcdserverpb.Auth", "AuthEnable"),
    ("/v3/auth/disable", "etcdserverpb.Auth", "AuthDisable"),
    ("/v3/auth/status", "etcdserverpb.Auth", "AuthStatus"),
    ("/v3/auth/authenticate", "etcdserverpb.Auth", "Authenticate"),
    ("/v3/auth/user/add", "etcdserverpb.Auth", "UserAdd"),
    ("/v3/auth/user/get", "etcdserverpb.Auth", "UserGet"),
    ("/v3/auth/user/list", "etcdserverpb.Auth", "UserList"),
    ("/v3/auth/user/delete", "etcdserverpb.Auth", "UserDelete"),
    (
        "/v3/auth/user/changepw",
        "etcdserverpb.Auth",
        "UserChangePassword",
    ),
    ("/v3/auth/user/grant", "etcdserverpb.Auth", "UserGrantRole"),
    (
        "/v3/auth/user/revoke",
        "etcdserverpb.Auth",
        "UserRevokeRole",
    ),
    ("/v3/auth/role/add", "etcdserverpb.Auth", "RoleAdd"),
    ("/v3/auth/role/get", "etcdserverpb.Auth", "RoleGet"),
    ("/v3/auth/role/list", "etcdserverpb.Auth", "RoleList"),
    ("/v3/auth/role/delete", "etcdserverpb.Auth", "RoleDelete"),
    (
        "/v3/auth/role/grant",
        "etcdserverpb.Auth",
        "RoleGrantPermission",
    ),
    (
        "/v3/auth/role/revoke",
        "etcdserverpb.Auth",
        "RoleRevokePermission",
    ),
    ("/v3/lock/lock", "v3lockpb.Lock", "Lock"),
    ("/v3/lock/unlock", "v3lockpb.Lock", "Unlock"),
    ("/v3/election/campaign", "v3electionpb.Election", "Campaign"),
    ("/v3/election/proclaim", "v3electionpb.Election", "Proclaim"),
    ("/v3/election/leader", "v3electionpb.Election", "Leader"),
    ("/v3/election/observe", "v3electionpb.Election", "Observe"),
    ("/v3/election/resign", "v3electionpb.Election", "Resign"),
];

/// The descriptors of the compiled protobuf files.
static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    DescriptorPool::decode(crate::proto::DESCRIPTORS).expect("descriptors compiled with the protos")
});

/// The prefixes the gateway answers under: `/v3/`, and `/v3beta/` as etcd
/// 3.4 (the version the engine reports) still does (measured on 3.4.23:
/// both serve every path; `/v3alpha/` answers 404 there, and here).
const PREFIXES: [&str; 2] = ["/v3/", "/v3beta/"];

/// Whether `path` is under one of the gateway's prefixes.
pub fn serves(path: &str) -> bool {
    PREFIXES.iter().any(|p| path.starts_with(p))
}

/// The gRPC method behind a gateway path (under any of [`PREFIXES`]).
pub fn route(path: &str) -> Option<MethodDescriptor> {
    let rest = PREFIXES.iter().find_map(|p| path.strip_prefix(p))?;
    let (_, service, method) = ROUTES
        .iter()
        .find(|(p, _, _)| p.strip_prefix("/v3/") == Some(rest))?;
    POOL.get_service_by_name(service)?
        .methods()
        .find(|m| m.name() == *method)
}

/// grpc-gateway's HTTP status for a gRPC status code.
fn http_status(code: u32) -> StatusCode {
    match code {
        0 => StatusCode::OK,
        1 => StatusCode::REQUEST_TIMEOUT,
        3 | 11 => StatusCode::BAD_REQUEST,
        9 => StatusCode::PRECONDITION_FAILED,
        4 => StatusCode::GATEWAY_TIMEOUT,
        5 => StatusCode::NOT_FOUND,
        6 | 10 => StatusCode::CONFLICT,
        7 => StatusCode::FORBIDDEN,
        8 => StatusCode::TOO_MANY_REQUESTS,
        12 => StatusCode::NOT_IMPLEMENTED,
        14 => StatusCode::SERVICE_UNAVAILABLE,
        16 => StatusCode::UNAUTHORIZED,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A gRPC error as etcd's gateway writes it (its key order).
fn error(code: u32, message: &str) -> Response<Body> {
    let m = serde_json::Value::from(message);
    json(
        http_status(code),
        format!(r#"{{"error":{m},"message":{m},"code":{code}}}"#),
    )
}

fn json(status: StatusCode, body: String) -> Response<Body> {
    super::text(status, "application/json", body)
}

/// Answers `req` on `method` through the gRPC services `inner`.
pub async fn call<S>(mut inner: S, method: MethodDescriptor, req: Request<Body>) -> Response<Body>
where
    S: tower::Service<Request<Body>, Response = Response<Body>> + Send,
    S::Future: Send,
{
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = match http_body_util::Limited::new(req.into_body(), MAX_BODY)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(e) => return error(3, &format!("cannot read the request body: {e}")),
    };
    let requests = match decode_requests(&method.input(), &body, method.is_client_streaming()) {
        Ok(r) => r,
        Err(e) => return error(3, &e),
    };
    let mut framed = BytesMut::new();
    for r in &requests {
        let bytes = r.encode_to_vec();
        framed.extend_from_slice(&[0]);
        framed.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        framed.extend_from_slice(&bytes);
    }
    let framed = framed.freeze();
    // A watch's request stream stays open after its requests (etcd's
    // gateway keeps a watch going until the HTTP client goes away); a
    // keep-alive's ends with them, and so does its answer (etcd 3.4 answers
    // each request, then ends).
    let body = if method.is_client_streaming() && method.name() == "Watch" {
        let once = futures_util::stream::once(async move { Ok(Frame::data(framed)) });
        let open = once.chain(futures_util::stream::pending());
        Body::new(http_body_util::StreamBody::new(
            open.map(|f: Result<Frame<Bytes>, tonic::Status>| f),
        ))
    } else {
        Body::new(http_body_util::Full::new(framed))
    };
    let mut grpc = Request::new(body);
    *grpc.method_mut() = http::Method::POST;
    *grpc.uri_mut() =
        match format!("/{}/{}", method.parent_service().full_name(), method.name()).parse() {
            Ok(u) => u,
            Err(_) => return error(13, "bad method path"),
        };
    let h = grpc.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/grpc"),
    );
    h.insert("te", HeaderValue::from_static("trailers"));
    if let Some(t) = token.and_then(|t| HeaderValue::from_str(&t).ok()) {
        h.insert("token", t);
    }
    let answer = match std::future::poll_fn(|cx| inner.poll_ready(cx)).await {
        Ok(()) => inner.call(grpc).await,
        Err(_) => return error(14, "the server is stopping"),
    };
    let Ok(answer) = answer else {
        return error(13, "the call failed");
    };
    if let Some((code, message)) = status(answer.headers()) {
        if code != 0 {
            return error(code, &message);
        }
    }
    let output = method.output();
    if method.is_server_streaming() {
        return stream(answer.into_body(), output);
    }
    unary(answer.into_body(), output).await
}

/// The request messages in a body: one JSON object (an empty body is the
/// empty request), or for a client stream any number of them.
fn decode_requests(
    input: &MessageDescriptor,
    body: &[u8],
    streaming: bool,
) -> Result<Vec<DynamicMessage>, String> {
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    let mut de = serde_json::Deserializer::from_slice(body);
    let mut out = Vec::new();
    loop {
        // Skip whitespace; stop at the end.
        if de.end().is_ok() {
            break;
        }
        let m = DynamicMessage::deserialize_with_options(input.clone(), &mut de, &options)
            .map_err(|e| e.to_string())?;
        out.push(m);
        if !streaming {
            de.end().map_err(|e| e.to_string())?;
            break;
        }
    }
    if out.is_empty() {
        out.push(DynamicMessage::new(input.clone()));
    }
    Ok(out)
}

/// The `grpc-status` and `grpc-message` in `headers`.
fn status(headers: &HeaderMap) -> Option<(u32, String)> {
    let code = headers.get("grpc-status")?.to_str().ok()?.parse().ok()?;
    let message = headers
        .get("grpc-message")
        .and_then(|v| v.to_str().ok())
        .map(percent_encoding_decode)
        .unwrap_or_default();
    Some((code, message))
}

/// Decodes gRPC's percent-encoded `grpc-message`.
fn percent_encoding_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("m={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// One message of `output` as JSON: proto field names in field order, no
/// default fields.
fn to_json(output: &MessageDescriptor, bytes: &[u8]) -> Result<String, String> {
    let m = DynamicMessage::decode(output.clone(), bytes).map_err(|e| e.to_string())?;
    let options = SerializeOptions::new()
        .use_proto_field_name(true)
        .skip_default_fields(true);
    let mut out = Vec::new();
    m.serialize_with_options(&mut serde_json::Serializer::new(&mut out), &options)
        .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// Reads gRPC's length-prefixed messages off `buf`.
fn next_message(buf: &mut BytesMut) -> Option<Bytes> {
    if buf.len() < 5 {
        return None;
    }
    let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
    if buf.len() < 5 + len {
        return None;
    }
    buf.advance(5);
    Some(buf.split_to(len).freeze())
}

/// A unary answer: its one message, or the error its trailers carry.
async fn unary(mut body: Body, output: MessageDescriptor) -> Response<Body> {
    let mut buf = BytesMut::new();
    let mut trailers = None;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => match f.into_data() {
                Ok(d) => buf.extend_from_slice(&d),
                Err(f) => trailers = f.into_trailers().ok(),
            },
            Err(s) => return error(s.code() as u32, s.message()),
        }
    }
    if let Some((code, message)) = trailers.as_ref().and_then(status) {
        if code != 0 {
            return error(code, &message);
        }
    }
    match next_message(&mut buf).map(|m| to_json(&output, &m)) {
        Some(Ok(v)) => json(StatusCode::OK, v),
        Some(Err(e)) => error(13, &e),
        None => error(13, "no answer"),
    }
}

/// A streamed answer: `{"result":…}` per message, a line each, then
/// `{"error":…}` if the stream ends with one.
fn stream(body: Body, output: MessageDescriptor) -> Response<Body> {
    let mut body = body;
    let mut buf = BytesMut::new();
    let mut done = false;
    let lines = futures_util::stream::poll_fn(move |cx| loop {
        if let Some(m) = next_message(&mut buf) {
            let line = match to_json(&output, &m) {
                Ok(v) => format!("{{\"result\":{v}}}\n"),
                Err(e) => stream_error(13, &e),
            };
            return Poll::Ready(Some(Ok::<_, tonic::Status>(Frame::data(Bytes::from(line)))));
        }
        if done {
            return Poll::Ready(None);
        }
        match std::pin::Pin::new(&mut body).poll_frame(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => done = true,
            Poll::Ready(Some(Ok(f))) => match f.into_data() {
                Ok(d) => buf.extend_from_slice(&d),
                Err(f) => {
                    done = true;
                    if let Some((code, message)) = f.into_trailers().ok().as_ref().and_then(status)
                    {
                        if code != 0 {
                            let line = stream_error(code, &message);
                            return Poll::Ready(Some(Ok(Frame::data(Bytes::from(line)))));
                        }
                    }
                }
            },
            Poll::Ready(Some(Err(s))) => {
                done = true;
                let line = stream_error(s.code() as u32, s.message());
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(line)))));
            }
        }
    });
    let mut r = super::text(StatusCode::OK, "application/json", String::new());
    *r.body_mut() = Body::new(http_body_util::StreamBody::new(lines));
    r
}

/// An error ending a stream, as grpc-gateway writes it (a line).
fn stream_error(code: u32, message: &str) -> String {
    let http = http_status(code);
    format!(
        "{{\"error\":{{\"grpc_code\":{code},\"http_code\":{},\"message\":{},\"http_status\":{}}}}}\n",
        http.as_u16(),
        serde_json::Value::from(message),
        serde_json::Value::from(http.canonical_reason().unwrap_or("")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_names_a_served_method() {
        for (path, service, method) in ROUTES {
            let m = route(path).unwrap_or_else(|| panic!("{path}: no {service}/{method}"));
            assert_eq!(m.name(), *method);
        }
        assert!(route("/v3/kv/nope").is_none());
    }

    /// The one list of what the engine serves is the compiled descriptors
    /// of the services `serve.rs` adds: every method of each is metered
    /// (`GRPC_METHODS`, with its kind) and has a gateway path (`ROUTES`),
    /// and neither list names a method that is not served.
    #[test]
    fn every_served_method_is_metered_and_routed() {
        use crate::metrics::GRPC_METHODS;
        use crate::proto::etcdserverpb as e;
        let served = [
            e::kv_server::SERVICE_NAME,
            e::watch_server::SERVICE_NAME,
            e::lease_server::SERVICE_NAME,
            e::cluster_server::SERVICE_NAME,
            e::maintenance_server::SERVICE_NAME,
            e::auth_server::SERVICE_NAME,
            crate::proto::v3lockpb::lock_server::SERVICE_NAME,
            crate::proto::v3electionpb::election_server::SERVICE_NAME,
        ];
        let mut methods = 0;
        for name in served {
            let service = POOL
                .get_service_by_name(name)
                .unwrap_or_else(|| panic!("{name}: not among the compiled descriptors"));
            for m in service.methods() {
                methods += 1;
                let kind = match (m.is_client_streaming(), m.is_server_streaming()) {
                    (false, false) => "unary",
                    (false, true) => "server_stream",
                    (true, false) => "client_stream",
                    (true, true) => "bidi_stream",
                };
                assert!(
                    GRPC_METHODS.contains(&(name, m.name(), kind)),
                    "{name}/{} ({kind}) is served but not in GRPC_METHODS",
                    m.name()
                );
                assert!(
                    ROUTES.iter().any(|(_, s, n)| *s == name && *n == m.name()),
                    "{name}/{} is served but has no gateway path in ROUTES",
                    m.name()
                );
            }
        }
        assert_eq!(
            GRPC_METHODS.len(),
            methods,
            "GRPC_METHODS names a method not served"
        );
        for (path, service, _) in ROUTES {
            assert!(served.contains(service), "{path}: {service} is not served");
        }
    }

    #[test]
    fn bodies_read_as_etcds_gateway_reads_them() {
        let put = route("/v3/kv/put").unwrap().input();
        // Empty: the empty request. Unknown fields: ignored.
        assert_eq!(decode_requests(&put, b"", false).unwrap().len(), 1);
        let one = decode_requests(&put, br#"{"key":"Zm9v","nope":1}"#, false).unwrap();
        assert_eq!(one[0].encode_to_vec(), {
            let p = crate::proto::etcdserverpb::PutRequest {
                key: b"foo".to_vec(),
                ..Default::default()
            };
            p.encode_to_vec()
        });
        // One object for a unary call; a stream's body may hold several.
        assert!(decode_requests(&put, br#"{"key":"YQ=="} {"key":"Yg=="}"#, false).is_err());
        let watch = route("/v3/watch").unwrap().input();
        let two = br#"{"create_request":{"key":"YQ=="}}
{"cancel_request":{"watch_id":"0"}}"#;
        assert_eq!(decode_requests(&watch, two, true).unwrap().len(), 2);
        assert!(decode_requests(&put, b"{not json", false).is_err());
    }

    #[test]
    fn grpc_messages_and_statuses_map_as_grpc_gateway_maps_them() {
        assert_eq!(
            percent_encoding_decode("etcdserver: key is not provided"),
            "etcdserver: key is not provided"
        );
        assert_eq!(percent_encoding_decode("a%20b%3A+c"), "a b:+c");
        assert_eq!(http_status(9), StatusCode::PRECONDITION_FAILED);
        assert_eq!(http_status(16), StatusCode::UNAUTHORIZED);
        assert_eq!(http_status(11), StatusCode::BAD_REQUEST);
        let mut buf = BytesMut::from(&[0u8, 0, 0, 0, 2, 7, 8, 0, 0][..]);
        assert_eq!(next_message(&mut buf).as_deref(), Some(&[7u8, 8][..]));
        assert_eq!(next_message(&mut buf), None);
    }
}
