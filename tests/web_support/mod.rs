//! Shared by the web tests and the web bench: a real `eleusis serve` service on a
//! free local port (in this process, on its own runtime), a small HTTP/1.1 client
//! and a WebSocket client for the live views.
#![allow(dead_code)]

pub mod driver;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use eleusis::web::{Service, ServiceOptions};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::runtime::Runtime;

/// The God token the test services use.
pub const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// A running service.
pub struct Server {
    pub addr: SocketAddr,
    pub token: String,
    pub rt: Runtime,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Starts a service on `db` (created when missing) on a free port, without
    /// the card recognizer.
    pub fn start(db: &Path) -> Server {
        Server::start_with(db, None)
    }

    /// Starts a service with the project's card recognizer (`models/`).
    pub fn start_with_recognizer(db: &Path) -> Server {
        Server::start_with(
            db,
            Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("models")),
        )
    }

    /// Starts a service with the card recognizer whose every court card asks God
    /// (`serve --confirm-courts`).
    pub fn start_confirming_courts(db: &Path) -> Server {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        Server::start_as(db, Some(models), TOKEN, true)
    }

    /// Starts a service (no recognizer) whose God token is `token`.
    pub fn start_with_token(db: &Path, token: &str) -> Server {
        Server::start_as(db, None, token, false)
    }

    fn start_with(db: &Path, models: Option<std::path::PathBuf>) -> Server {
        Server::start_as(db, models, TOKEN, false)
    }

    /// Stops the service and starts it again on the same database and address
    /// with God token `token`: a restart without `--god-token`, whose new token
    /// the pages opened before do not carry.
    pub fn restart_with_token(self, db: &Path, token: &str) -> Server {
        let addr = self.addr;
        self.stop();
        Server::start_at(db, None, token, false, &addr.to_string())
    }

    /// Stops the service and returns its address, for [`Server::start_on`]: the
    /// pages opened on it lose their connection and try it again meanwhile.
    pub fn stop_keeping_addr(self) -> SocketAddr {
        let addr = self.addr;
        self.stop();
        addr
    }

    /// Starts a service (no recognizer, the test token) on `db` at `addr`, where
    /// one was stopped: the pages opened on it connect again by themselves.
    pub fn start_on(db: &Path, addr: SocketAddr) -> Server {
        Server::start_at(db, None, TOKEN, false, &addr.to_string())
    }

    fn start_as(
        db: &Path,
        models: Option<std::path::PathBuf>,
        token: &str,
        confirm_courts: bool,
    ) -> Server {
        Server::start_at(db, models, token, confirm_courts, "127.0.0.1:0")
    }

    fn start_at(
        db: &Path,
        models: Option<std::path::PathBuf>,
        token: &str,
        confirm_courts: bool,
        at: &str,
    ) -> Server {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let service = Service::open(&ServiceOptions {
            db: db.to_path_buf(),
            no_recognizer: models.is_none(),
            models,
            god_token: Some(token.to_string()),
            confirm_threshold: None,
            confirm_courts,
        })
        .expect("open the service");
        let token = service.state.god_token.clone();
        let listener = rt
            .block_on(tokio::net::TcpListener::bind(at))
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let done = rt.spawn(service.serve(listener, async {
            let _ = stopped.await;
        }));
        Server {
            addr,
            token,
            rt,
            stop: Some(stop),
            done: Some(done),
        }
    }

    /// Stops the service and waits until its store is closed.
    pub fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(done) = self.done.take() {
            let result = self
                .rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(30), done).await });
            assert!(
                matches!(result, Ok(Ok(Ok(())))),
                "the service did not stop cleanly: {result:?}"
            );
        }
    }

    pub fn get(&self, path: &str) -> Resp {
        request(self.addr, "GET", path, &[], b"")
    }

    pub fn get_god(&self, path: &str) -> Resp {
        let auth = format!("Bearer {}", self.token);
        request(self.addr, "GET", path, &[("Authorization", &auth)], b"")
    }

    /// POST with the God token.
    pub fn post(&self, path: &str, body: &str) -> Resp {
        self.post_bytes(path, body.as_bytes())
    }

    pub fn post_bytes(&self, path: &str, body: &[u8]) -> Resp {
        let auth = format!("Bearer {}", self.token);
        request(self.addr, "POST", path, &[("Authorization", &auth)], body)
    }

    /// POST without any token.
    pub fn post_public(&self, path: &str, body: &str) -> Resp {
        request(self.addr, "POST", path, &[], body.as_bytes())
    }

    /// Opens `/ws` (God's view with `god`).
    pub fn ws(&self, god: bool) -> Ws {
        let url = if god {
            format!("ws://{}/ws?token={}", self.addr, self.token)
        } else {
            format!("ws://{}/ws", self.addr)
        };
        let (stream, _) = self
            .rt
            .block_on(tokio_tungstenite::connect_async(url))
            .expect("websocket");
        Ws { stream }
    }
}

/// A WebSocket client of `/ws`.
pub struct Ws {
    stream: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl Ws {
    /// The next pushed view (waits at most 20 s).
    pub fn next_view(&mut self, rt: &Runtime) -> Value {
        rt.block_on(self.next_view_async())
    }

    /// Skips the service's heartbeats (`{"type":"beat"}`).
    pub async fn next_view_async(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let message = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .expect("a view within 20 s")
                .expect("the socket is open")
                .expect("a message");
            if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).expect("JSON message");
                if value["type"] == "beat" {
                    continue;
                }
                assert_eq!(value["type"], "view", "{value}");
                return value["view"].clone();
            }
        }
    }

    /// The next text message of any type, whole (`{"type":"beat"}` or a view's
    /// message), waiting at most `within`.
    pub async fn next_message_async(&mut self, within: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let message = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .expect("a message in time")
                .expect("the socket is open")
                .expect("a message");
            if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
                return serde_json::from_str(&text).expect("JSON message");
            }
        }
    }

    /// Views until one with `version >= at_least`.
    pub fn view_from(&mut self, rt: &Runtime, at_least: u64) -> Value {
        loop {
            let view = self.next_view(rt);
            if view["version"].as_u64().unwrap_or(0) >= at_least {
                return view;
            }
        }
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: String,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts the status and returns the JSON body.
    pub fn expect(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "{}", self.text());
        self.json()
    }
}

/// One HTTP/1.1 request on a fresh connection.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body).expect("write body");
    // Some servers (chromedriver) keep the connection open despite
    // `Connection: close`: read what Content-Length or the chunking says.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let complete = |raw: &[u8]| -> bool {
        let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
            return false;
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let body = &raw[split + 4..];
        if let Some(len) = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            return body.len() >= len;
        }
        head.contains("transfer-encoding: chunked") && body.ends_with(b"0\r\n\r\n")
    };
    while !complete(&raw) {
        let n = stream.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of headers");
    let headers = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let status = headers
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .expect("chunk size");
        let start = end + 2;
        let Some(chunk) = data.get(start..start + size) else {
            panic!("truncated chunk of {size} bytes");
        };
        if size == 0 {
            break;
        }
        out.extend_from_slice(chunk);
        data = data.get(start + size + 2..).unwrap_or(&[]);
    }
    out
}

/// A small PNG frame (a green table with a white card-sized rectangle).
pub fn png_frame() -> Vec<u8> {
    let mut image = image::RgbImage::from_pixel(320, 240, image::Rgb([20, 110, 50]));
    for y in 60..180 {
        for x in 130..216 {
            image.put_pixel(x, y, image::Rgb([250, 250, 245]));
        }
    }
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("png");
    out.into_inner()
}

/// A round whose prophet's call on 3S (event 4) was recorded "wrong" though he said
/// "right", and a play after it (event 5) with a call of its own: corrected, the
/// prophet falls on 3S and event 5's call must go, in one correction line (`also`).
pub fn record_a_prophet_call_to_correct(server: &Server) {
    let round = serde_json::json!({"god": "G", "players": ["A", "B", "C", "D"],
                                   "rule": "red", "starter": "AH"});
    server.post("/api/rounds", &round.to_string()).expect(200);
    let first = server.post("/api/plays", r#"{"cards":["2H"]}"#).expect(200);
    let prophet = first["last"]["player"]
        .as_str()
        .expect("player")
        .to_string();
    server
        .post(
            "/api/prophet",
            &serde_json::json!({ "player": prophet }).to_string(),
        )
        .expect(200);
    server
        .post("/api/plays", r#"{"cards":["3S"],"prophet_says":"wrong"}"#)
        .expect(200);
    server
        .post("/api/plays", r#"{"cards":["4H"],"prophet_says":"right"}"#)
        .expect(200);
}
