//! `payverify sandbox` as a child process: started on a free port, read by raw requests
//! (its control endpoints too), stopped with SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Standalone {
    pub child: Child,
    pub url: String,
    pub stdout: BufReader<ChildStdout>,
}

impl Standalone {
    pub fn start(args: &[&str]) -> Standalone {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("payverify"))
            .arg("sandbox")
            .args(["--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut url = String::new();
        stdout.read_line(&mut url).unwrap();
        let url = url.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "first line: {url:?}");
        Standalone { child, url, stdout }
    }

    pub fn addr(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    pub fn terminate(mut self) -> (Option<i32>, String) {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stderr = String::new();
                self.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut stderr)
                    .unwrap();
                return (status.code(), stderr);
            }
            assert!(Instant::now() < deadline, "sandbox did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 GET over a TCP socket: status code and body.
pub fn raw_get(addr: &str, path: &str, authorization: Option<&str>) -> (u16, String) {
    raw_request(addr, "GET", path, authorization)
}

/// A plain HTTP/1.1 request with no body over a TCP socket: status code and body.
pub fn raw_request(
    addr: &str,
    method: &str,
    path: &str,
    authorization: Option<&str>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let auth = authorization
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}
