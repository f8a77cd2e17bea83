//! The end-to-end tests' stand-in servers on 127.0.0.1 (the Messages API for Claude Code, the
//! Gemini API for Gemini CLI, the Responses API for Codex CLI): a minimal HTTP/1.1 server that
//! records every request and lets the test answer it, and a stand-in model API over it that
//! answers with the replies a test scripts. Each connection carries one request and is closed
//! after the answer.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// One request a client sent.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The body parsed as JSON; `Null` when empty or not JSON.
    pub body: Value,
}

/// A running server: its port and what it has received.
pub struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Listen on a free loopback port and answer each request with `answer`, which writes the
    /// whole response to the stream. `name` labels the server's errors on standard error.
    pub fn start<F>(name: &'static str, answer: F) -> Server
    where
        F: Fn(&Request, &mut TcpStream) -> std::io::Result<()> + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        let answer = Arc::new(answer);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (recorded, answer) = (Arc::clone(&recorded), Arc::clone(&answer));
                thread::spawn(move || {
                    if let Err(e) = serve(stream, &recorded, answer.as_ref()) {
                        eprintln!("{name}: {e}");
                    }
                });
            }
        });
        Server { port, requests }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

/// The replies a test scripted, in order, that a stand-in has not given yet.
pub type Replies<R> = Mutex<VecDeque<R>>;

/// A stand-in model API: a `Server` that answers each request with `answer`, which takes the
/// next scripted reply of type `R` when the request is a model call.
pub struct StandIn<R> {
    server: Server,
    replies: Arc<Replies<R>>,
}

impl<R: Send + 'static> StandIn<R> {
    pub fn start(
        answer: fn(&Request, &mut TcpStream, &Replies<R>) -> std::io::Result<()>,
    ) -> StandIn<R> {
        let replies = Arc::new(Mutex::new(VecDeque::new()));
        let queue = Arc::clone(&replies);
        let server = Server::start("stand-in API", move |request, out| {
            answer(request, out, &queue)
        });
        StandIn { server, replies }
    }
}

impl<R> StandIn<R> {
    /// The server's `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Queue `reply` as the next model call's.
    pub fn push(&self, reply: R) {
        self.replies.lock().unwrap().push_back(reply);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }
}

/// The next scripted reply of `replies`, or `otherwise` when none is left.
pub fn next_reply<R>(replies: &Replies<R>, otherwise: impl FnOnce() -> R) -> R {
    let next = replies.lock().unwrap().pop_front();
    next.unwrap_or_else(otherwise)
}

/// Answer one connection: read its request, record it, let `answer` respond, close.
fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Request>>,
    answer: &(dyn Fn(&Request, &mut TcpStream) -> std::io::Result<()> + Send + Sync),
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(());
    }
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or_default().to_owned();
    let path = words.next().unwrap_or_default().to_owned();
    let (mut length, mut chunked) = (0usize, false);
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.trim_end().split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let raw = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut raw = vec![0; length];
        reader.read_exact(&mut raw)?;
        raw
    };
    let request = Request {
        method,
        path,
        body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
    };
    // Recorded before the answer, so a finished run has all its requests recorded.
    requests.lock().unwrap().push(request.clone());
    let mut out = stream;
    answer(&request, &mut out)?;
    out.flush()
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size = line.trim().split(';').next().unwrap_or("0");
        let size = usize::from_str_radix(size, 16).unwrap_or(0);
        if size == 0 {
            // Trailers, if any, end with an empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?; // the CRLF after the chunk
    }
}

/// A `200 OK` response with `value` as its JSON body.
pub fn write_json(out: &mut impl Write, value: &Value) -> std::io::Result<()> {
    let data = value.to_string();
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{data}",
        data.len()
    )
}

/// A `200 OK` stream of server-sent events, each of `events` as one event named by its `type`;
/// the body ends when the connection closes.
pub fn write_events(out: &mut impl Write, events: &[Value]) -> std::io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Connection: close\r\n\r\n",
    )?;
    for event in events {
        let name = event["type"].as_str().expect("an event has a type");
        write!(out, "event: {name}\ndata: {event}\n\n")?;
        out.flush()?;
    }
    Ok(())
}
