//! Headless Chromium driven over WebDriver (`chromedriver`, started here) for the
//! browser tests of the pages.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::request;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver, killed when dropped (also when the test fails).
pub struct Driver {
    child: Child,
    pub addr: SocketAddr,
    session: Option<String>,
}

impl Driver {
    pub fn start() -> Driver {
        Driver::start_with_env(&[])
    }

    /// chromedriver, and the Chromium it starts, in the time zone `zone` (an IANA
    /// name, `Europe/Paris`): the pages show times in the browser's own zone.
    pub fn start_in_zone(zone: &str) -> Driver {
        Driver::start_with_env(&[("TZ", zone)])
    }

    fn start_with_env(env: &[(&str, &str)]) -> Driver {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(tool).exists(),
                "{tool} is missing: install Debian's chromium and chromium-driver \
                 (scripts/test-all does: apt-get install -y chromium chromium-driver)"
            );
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new(CHROMEDRIVER)
            .envs(env.iter().copied())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
        let driver = Driver {
            child,
            addr,
            session: None,
        };
        let start = Instant::now();
        loop {
            let ready = std::net::TcpStream::connect(addr).is_ok()
                && request(addr, "GET", "/status", &[], b"").json()["value"]["ready"] == true;
            if ready {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    pub fn call(&self, method: &str, path: &str, body: &Value) -> Value {
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let headers = [("Content-Type", "application/json")];
        let r = request(self.addr, method, path, &headers, text.as_bytes());
        let value = r.json();
        assert_eq!(r.status, 200, "WebDriver {method} {path}: {value}");
        value["value"].clone()
    }

    pub fn open_session(&mut self, profile: &Path) {
        self.open_session_with(profile, &[]);
    }

    /// A session with more Chromium switches (a fake webcam, say).
    pub fn open_session_with(&mut self, profile: &Path, extra: &[String]) {
        let mut args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--window-size=1366,900".into(),
            format!("--user-data-dir={}", profile.display()),
        ];
        args.extend_from_slice(extra);
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": CHROMIUM, "args": args }
        }}});
        let value = self.call("POST", "/session", &caps);
        self.session = Some(value["sessionId"].as_str().expect("session id").to_string());
    }

    /// A session whose webcam is Chromium's fake one playing `video` (Y4M, in a
    /// loop), with the page's camera permission granted.
    pub fn open_session_with_webcam(&mut self, profile: &Path, video: &Path) {
        self.open_session_with(
            profile,
            &[
                "--use-fake-ui-for-media-stream".into(),
                "--use-fake-device-for-media-stream".into(),
                format!("--use-file-for-fake-video-capture={}", video.display()),
            ],
        );
    }

    pub fn session_path(&self, tail: &str) -> String {
        format!(
            "/session/{}/{tail}",
            self.session.as_deref().expect("session")
        )
    }

    pub fn goto(&self, url: &str) {
        self.call("POST", &self.session_path("url"), &json!({ "url": url }));
    }

    pub fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            &self.session_path("execute/sync"),
            &json!({"script": script, "args": []}),
        )
    }

    /// Sets the size of the page's viewport, in CSS pixels (a phone is narrower
    /// than a desktop window may be); the page lays itself out again, as on a
    /// screen turned or resized.
    pub fn viewport(&self, width: u32, height: u32) {
        self.call(
            "POST",
            &self.session_path("goog/cdp/execute"),
            &json!({"cmd": "Emulation.setDeviceMetricsOverride",
                    "params": {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}}),
        );
    }

    /// Evaluates `script` until `ok` holds on its value (20 s at most).
    pub fn wait_for(&self, what: &str, script: &str, ok: impl Fn(&Value) -> bool) -> Value {
        self.wait_within(Duration::from_secs(20), what, script, ok)
    }

    /// [`Driver::wait_for`] with another limit.
    pub fn wait_within(
        &self,
        limit: Duration,
        what: &str,
        script: &str,
        ok: impl Fn(&Value) -> bool,
    ) -> Value {
        let start = Instant::now();
        loop {
            let value = self.eval(script);
            if ok(&value) {
                return value;
            }
            assert!(
                start.elapsed() < limit,
                "the page never showed {what}; last seen: {value}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn find(&self, css: &str) -> String {
        let value = self.call(
            "POST",
            &self.session_path("element"),
            &json!({"using": "css selector", "value": css}),
        );
        value
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("element id")
            .to_string()
    }

    /// Types `text` into the element (for a file input: the file's path).
    pub fn send_keys(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call(
            "POST",
            &self.session_path(&format!("element/{element}/value")),
            &json!({ "text": text }),
        );
    }

    /// Saves a screenshot (PNG) for a person to look at.
    pub fn screenshot(&self, path: &Path) {
        let value = self.call("GET", &self.session_path("screenshot"), &Value::Null);
        let bytes = base64_decode(value.as_str().expect("base64"));
        assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(path, bytes).expect("write screenshot");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            let _ = std::panic::catch_unwind(|| {
                request(
                    self.addr,
                    "DELETE",
                    &format!("/session/{session}"),
                    &[],
                    b"",
                )
            });
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    out
}

/// Writes a one-frame-a-second Y4M video (4:2:0, full-range BT.601): Chromium's
/// fake webcam plays it in a loop.
pub fn write_y4m(path: &Path, frames: &[&image::RgbImage]) {
    use std::io::Write;
    let (w, h) = frames[0].dimensions();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("y4m file"));
    writeln!(out, "YUV4MPEG2 W{w} H{h} F1:1 Ip A1:1 C420jpeg").expect("write");
    for frame in frames {
        let px = |x: u32, y: u32| frame.get_pixel(x, y).0.map(f32::from);
        let luma = |[r, g, b]: [f32; 3]| 0.299 * r + 0.587 * g + 0.114 * b;
        let y_plane: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| luma(px(x, y)).round().clamp(0.0, 255.0) as u8)
            .collect();
        let (mut u_plane, mut v_plane) = (Vec::new(), Vec::new());
        for y in (0..h).step_by(2) {
            for x in (0..w).step_by(2) {
                let [r, g, b] = px(x, y);
                let u = 128.0 - 0.168_736 * r - 0.331_264 * g + 0.5 * b;
                let v = 128.0 + 0.5 * r - 0.418_688 * g - 0.081_312 * b;
                u_plane.push(u.round().clamp(0.0, 255.0) as u8);
                v_plane.push(v.round().clamp(0.0, 255.0) as u8);
            }
        }
        out.write_all(b"FRAME\n").expect("write");
        for plane in [&y_plane, &u_plane, &v_plane] {
            out.write_all(plane).expect("write");
        }
    }
    out.flush().expect("flush");
}
