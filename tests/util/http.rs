//! Plain HTTP/1.1 requests over a TCP socket, as curl or a load balancer's
//! probe sends them: no client library between the test and the server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A whole answer.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// Header names (lower-case) and values.
    pub headers: Vec<(String, String)>,
    /// The body (chunked bodies joined).
    pub body: String,
}

impl Answer {
    /// The value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// `GET path` on `base` (`http://host:port`).
pub fn get(base: &str, path: &str) -> Answer {
    try_get(base, path).unwrap_or_else(|e| panic!("GET {base}{path}: {e}"))
}

/// `GET path` on `base`; Err when nothing answers there (yet).
pub fn try_get(base: &str, path: &str) -> Result<Answer, String> {
    request(base, "GET", path, &[], None)
}

/// `POST path` on `base` with a JSON `body` and extra `headers`.
pub fn post(base: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    request(base, "POST", path, headers, Some(body))
        .unwrap_or_else(|e| panic!("POST {base}{path}: {e}"))
}

/// One request on a new connection (`Connection: close`), read to its end.
pub fn request(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Result<Answer, String> {
    let host = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let mut tcp = TcpStream::connect(&host).map_err(|e| format!("connect {host}: {e}"))?;
    tcp.set_read_timeout(Some(Duration::from_secs(15)))
        .map_err(|e| e.to_string())?;
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            b.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(body.unwrap_or(""));
    tcp.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    parse(&raw).ok_or_else(|| format!("not an HTTP answer: {:?}", String::from_utf8_lossy(&raw)))
}

/// Parses an HTTP/1.1 answer read to the connection's end.
fn parse(raw: &[u8]) -> Option<Answer> {
    let text = String::from_utf8_lossy(raw);
    let (head, rest) = text.split_once("\r\n\r\n")?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_string()
    };
    Some(Answer {
        status,
        headers,
        body,
    })
}

/// Joins the chunks of a chunked body.
fn dechunk(mut rest: &str) -> Option<String> {
    let mut body = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n")?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.push_str(after.get(..size)?);
        rest = after.get(size + 2..)?;
    }
}

/// `GET path` on `base` with extra `headers`, the body as the bytes sent
/// (a gzipped body stays gzipped): (status, headers, body).
pub fn get_bytes(
    base: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let host = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let mut tcp = TcpStream::connect(&host).unwrap_or_else(|e| panic!("connect {host}: {e}"));
    tcp.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    tcp.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).unwrap();
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP answer: {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1)?.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if !chunked {
        return (status, headers, rest.to_vec());
    }
    let mut body = Vec::new();
    loop {
        let line = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk's size line");
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..line]).trim(), 16)
            .expect("a chunk's size");
        if size == 0 {
            return (status, headers, body);
        }
        body.extend_from_slice(&rest[line + 2..line + 2 + size]);
        rest = &rest[line + 2 + size + 2..];
    }
}
