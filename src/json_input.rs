//! Reading the JSON that people and tools write (table-log lines, API bodies)
//! strictly, with errors that say what is wrong and where.
//!
//! serde_json keeps the last of two equal keys in an object, so
//! `{"cards":["2S"],"cards":["2H"]}` would be refereed as a play of 2H while whoever
//! wrote it may have meant 2S. Unknown fields are refused for the same reason (a
//! verdict must not hang on a field nobody sees), so [`parse_value`] refuses a
//! duplicate key at every depth. [`from_value`] turns a value into a typed event and,
//! when it does not fit, names the field and says what was expected in the words of
//! the table log ("a whole number", "a list"), never with a Rust type name, which
//! means nothing to the person holding the log.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use thiserror::Error;

/// One step into a JSON value: an object's key or a list's 0-based index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Where in a JSON value, outermost step first; empty for the value itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonPath(pub Vec<Step>);

impl JsonPath {
    /// Whether the path is the value itself.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The path for a person, with list positions 1-based and `noun` naming the
    /// items of the innermost list: `field "hand", card 3`,
    /// `field "evidence.reads", item 1, field "read"`.
    fn render(&self, noun: &str) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut keys: Vec<&str> = Vec::new();
        let last = self.0.len().saturating_sub(1);
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(key) => keys.push(key),
                Step::Index(index) => {
                    if !keys.is_empty() {
                        parts.push(format!("field {}", quoted(&keys.join("."))));
                        keys.clear();
                    }
                    let noun = if i == last { noun } else { "item" };
                    parts.push(format!("{noun} {}", index + 1));
                }
            }
        }
        if !keys.is_empty() {
            parts.push(format!("field {}", quoted(&keys.join("."))));
        }
        parts.join(", ")
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render("item"))
    }
}

/// Why a text is not acceptable JSON.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JsonInputError {
    /// Not JSON; `message` is serde_json's without its position, which `line` and
    /// `column` (1-based, in the text given) hold.
    #[error("{message} (line {line}, column {column})")]
    Syntax {
        message: String,
        line: usize,
        column: usize,
    },
    /// The same key twice in one object, which serde_json would silently resolve
    /// by keeping the last one.
    #[error("{}duplicate field {}", where_prefix(path), quoted(key))]
    Duplicate { path: JsonPath, key: String },
}

/// A value that does not fit the shape expected; `reason` names the field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{reason}")]
pub struct FieldError {
    /// Where the value that does not fit is.
    pub path: JsonPath,
    /// What is wrong and where, ready to show.
    pub reason: String,
}

/// Parses a JSON text, refusing a duplicate key in any object.
pub fn parse_value(text: &str) -> Result<Value, JsonInputError> {
    strict(&mut serde_json::Deserializer::from_str(text))
}

/// [`parse_value`] for bytes (a request body); text that is not UTF-8 is a syntax
/// error.
pub fn parse_slice(bytes: &[u8]) -> Result<Value, JsonInputError> {
    strict(&mut serde_json::Deserializer::from_slice(bytes))
}

fn strict<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
) -> Result<Value, JsonInputError> {
    let duplicate = RefCell::new(None);
    let stack = RefCell::new(Vec::new());
    let seed = Strict {
        stack: &stack,
        duplicate: &duplicate,
    };
    let result = seed.deserialize(&mut *de).and_then(|value| {
        de.end()?;
        Ok(value)
    });
    result.map_err(|e| match duplicate.into_inner() {
        Some(found) => found,
        None => JsonInputError::Syntax {
            message: without_position(&e),
            line: e.line(),
            column: e.column(),
        },
    })
}

/// serde_json's message without the ` at line L column C` it ends with: the callers
/// say where in their own words (a table log's line is one line of the file, so its
/// column is all that is left to say).
pub fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    // serde_json says these of a `\uD800`–`\uDFFF` escape without its pair, which
    // is no character at all: "end of hex escape" sends one looking for a typo in
    // the digits.
    match message {
        "unexpected end of hex escape" | "lone leading surrogate in hex escape" => {
            LONE_SURROGATE.to_string()
        }
        other => other.to_string(),
    }
}

/// What is wrong with a string holding half of a UTF-16 surrogate pair.
pub const LONE_SURROGATE: &str = "a lone UTF-16 surrogate (an escape from \\ud800 to \\udfff \
     without its other half) is not valid text";

/// A syntax error in a text of one line (a table log line, a `--batch` request),
/// said once: `EOF while parsing an object (column 30)`.
pub fn one_line_syntax(e: &serde_json::Error) -> String {
    format!("{} (column {})", without_position(e), e.column())
}

/// Builds a [`Value`] like serde_json does, but stops at a key already seen in
/// the same object and leaves where it was in `duplicate`.
struct Strict<'a> {
    stack: &'a RefCell<Vec<Step>>,
    duplicate: &'a RefCell<Option<JsonInputError>>,
}

impl Strict<'_> {
    fn nested(&self) -> Self {
        Strict {
            stack: self.stack,
            duplicate: self.duplicate,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number must be finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            self.stack.borrow_mut().push(Step::Index(items.len()));
            let item = seq.next_element_seed(self.nested())?;
            self.stack.borrow_mut().pop();
            match item {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                let path = JsonPath(self.stack.borrow().clone());
                *self.duplicate.borrow_mut() = Some(JsonInputError::Duplicate { path, key });
                return Err(de::Error::custom("duplicate field"));
            }
            self.stack.borrow_mut().push(Step::Key(key.clone()));
            let value = access.next_value_seed(self.nested())?;
            self.stack.borrow_mut().pop();
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// Reads `value` as a `T`; when it does not fit, the error names the field and says
/// what was expected and what was found.
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T, FieldError> {
    from_value_at(value, &JsonPath::default())
}

/// Checks that `object[field]`, when present, reads as a `T` (for a part of a line
/// another module reads later, so that its errors name the field too).
pub fn check_field<T: DeserializeOwned>(
    object: &Map<String, Value>,
    field: &str,
) -> Result<(), FieldError> {
    match object.get(field) {
        None => Ok(()),
        Some(value) => from_field_value::<T>(value, field).map(drop),
    }
}

/// Reads the value of `field` (taken out of its object) as a `T`; when it does not
/// fit, the error names the field from the line's top, as [`check_field`] does.
pub fn from_field_value<T: DeserializeOwned>(value: &Value, field: &str) -> Result<T, FieldError> {
    from_value_at(value, &JsonPath(vec![Step::Key(field.to_string())]))
}

fn from_value_at<T: DeserializeOwned>(value: &Value, prefix: &JsonPath) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut path = prefix.clone();
        for segment in e.path() {
            match segment {
                serde_path_to_error::Segment::Map { key } => path.0.push(Step::Key(key.clone())),
                serde_path_to_error::Segment::Seq { index } => path.0.push(Step::Index(*index)),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => {}
            }
        }
        let message = e.inner().to_string();
        // serde reports an unknown or missing field at the object that has (or
        // lacks) it; the message names the key already.
        if message.starts_with("unknown field `")
            && matches!(path.0.last(), Some(Step::Key(key)) if message.starts_with(&format!("unknown field `{key}`")))
        {
            path.0.pop();
        }
        let steps = &path.0[prefix.0.len()..];
        let found = lookup(value, steps);
        // serde reads a closed list of values from a string, or from an object
        // of one key, and says of any other object only "expected map with a
        // single key": ask the type for its values instead.
        let message = match message.strip_suffix(", expected map with a single key") {
            Some(head) => match values_of::<T>(value, steps) {
                Some(values) => format!("{head}, expected {values}"),
                None => message,
            },
            None => message,
        };
        explain(path, &message, found)
    })
}

/// The values of the closed list read at `steps` in `value` (`"right" or
/// "wrong"`), as serde names them when given a string that is none of them.
fn values_of<T: DeserializeOwned>(value: &Value, steps: &[Step]) -> Option<String> {
    let mut probe = value.clone();
    let slot = steps
        .iter()
        .try_fold(&mut probe, |value, step| match step {
            Step::Key(key) => value.get_mut(key.as_str()),
            Step::Index(index) => value.get_mut(*index),
        })?;
    // No value of a closed list is a lone NUL.
    *slot = Value::String("\0".to_string());
    let message = serde_json::from_value::<T>(probe).err()?.to_string();
    let (_, values) = message
        .strip_prefix("unknown variant `\0`")?
        .split_once(", expected ")?;
    Some(values.replace('`', "\""))
}

fn lookup<'v>(value: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get(key.as_str()),
        Step::Index(index) => value.get(*index),
    })
}

/// Rewrites serde's message in the table log's words, with where it happened.
fn explain(path: JsonPath, message: &str, found: Option<&Value>) -> FieldError {
    let mut noun = "item";
    let mut what = message.to_string();
    if matches!(path.0.last(), Some(Step::Index(_))) {
        // A card's own error starts with `card "1X": …`; the position says "card".
        if let Some(rest) = message.strip_prefix("card ") {
            noun = "card";
            what = rest.to_string();
        } else if message.starts_with("empty card token") {
            noun = "card";
        }
    }
    let mismatch = ["invalid type: ", "invalid value: ", "invalid length "]
        .iter()
        .any(|p| message.starts_with(p));
    if mismatch {
        if let Some(at) = message.rfind(", expected ") {
            let type_name = &message[at + ", expected ".len()..];
            // Past any 64-bit integer, JSON's whole numbers are read as floating
            // point: `99999999999999999999999` has no decimal point to blame, only
            // a size the field cannot hold.
            let outside = |n: &serde_json::Number, low: i128, high: u128| {
                n.as_f64()
                    .is_some_and(|x| x.fract() == 0.0 && (x < low as f64 || x > high as f64))
            };
            let expected = match (whole_number_range(type_name), found) {
                // A whole number that does not fit: say which ones do.
                (Some((low, high)), Some(Value::Number(n)))
                    if !n.is_f64() || outside(n, low, high) =>
                {
                    format!("a whole number from {low} to {high}")
                }
                // `14.0` or `-0`: JSON writes a whole number without a decimal point.
                (Some(_), Some(Value::Number(n)))
                    if n.as_f64().is_some_and(|x| x.fract() == 0.0) =>
                {
                    "a whole number written without a decimal point".to_string()
                }
                _ => in_words(type_name),
            };
            let got = match found {
                Some(value) => describe(value),
                None => message[..at]
                    .trim_start_matches("invalid type: ")
                    .trim_start_matches("invalid value: ")
                    .to_string(),
            };
            what = format!("expected {expected}, got {got}");
        }
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        // serde calls a value of a closed list a "variant", which on a table log
        // reads as the game's variant: `"prophet_says": "Wrong"` is a value.
        what = format!("unknown value `{rest}").replace('`', "\"");
        let given = rest.split('`').next().unwrap_or_default();
        let lower = given.to_lowercase();
        if lower != given && rest.contains(&format!("`{lower}`")) {
            what.push_str(&format!(" (in lower case: \"{lower}\")"));
        }
    } else if ["unknown field `", "missing field `"]
        .iter()
        .any(|p| message.starts_with(p))
    {
        what = message.replace('`', "\"");
    }
    let place = path.render(noun);
    let reason = if place.is_empty() {
        what
    } else {
        format!("{place}: {what}")
    };
    FieldError {
        path,
        reason: cut_quotes(&reason),
    }
}

/// The whole numbers serde's integer type `type_name` holds; `None` for other types.
fn whole_number_range(type_name: &str) -> Option<(i128, u128)> {
    Some(match type_name {
        "u8" => (0, u128::from(u8::MAX)),
        "u16" => (0, u128::from(u16::MAX)),
        "u32" => (0, u128::from(u32::MAX)),
        "u64" | "usize" => (0, u128::from(u64::MAX)),
        "i8" => (i128::from(i8::MIN), 127),
        "i16" => (i128::from(i16::MIN), 32_767),
        "i32" => (i128::from(i32::MIN), 2_147_483_647),
        "i64" | "isize" => (i128::from(i64::MIN), 9_223_372_036_854_775_807),
        _ => return None,
    })
}

/// serde's name of what a type expects, in the words of the table log.
fn in_words(expected: &str) -> String {
    let words = match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a sequence" => "a list",
        "a boolean" => "true or false",
        "a string" | "a borrowed string" | "string or map" | "variant identifier" => "a string",
        "a map" => "an object",
        "unit" => "null",
        other if other.starts_with("struct ") => "an object",
        other => {
            if let Some(n) = other
                .strip_prefix("an array of length ")
                .or_else(|| other.strip_prefix("a tuple of size "))
            {
                return format!("a list of {n}");
            }
            other
        }
    };
    words.to_string()
}

/// A `T` read only from a JSON object. serde reads a struct from a list of its
/// fields' values too (`["f.jpg", "cam/1", []]` for `{frame, frame_ref, reads}`),
/// which nobody writes on purpose and which passes by every check made on the
/// object's fields by name: wrap a type in this where the input must name them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectOnly<T>(pub T);

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(std::marker::PhantomData<T>);

        impl<'de, T: de::Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = T;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }

        deserializer
            .deserialize_map(Fields(std::marker::PhantomData))
            .map(ObjectOnly)
    }
}

/// Most characters of a text from the input (a name, a value) an error message
/// quotes: enough to recognise it, and a megabyte of it is no help in the answer.
pub const QUOTED_CHARS: usize = 60;

/// `text` as an error message quotes it: whole when short, else its first
/// [`QUOTED_CHARS`] characters and "…".
pub fn shortened(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// `reason` with every quoted text in it (a value or a key of the line, written
/// `"…"` with backslash escapes) cut to [`QUOTED_CHARS`] characters: a line
/// may hold a megabyte in one string, and an error quoting it whole buries what it
/// says (and where) under it.
fn cut_quotes(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len().min(1024));
    let mut rest = reason;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        // The closing quote is the first one not escaped by a backslash.
        let mut escaped = false;
        let close = body.char_indices().find_map(|(i, c)| match c {
            '\\' => {
                escaped = !escaped;
                None
            }
            '"' if !escaped => Some(i),
            _ => {
                escaped = false;
                None
            }
        });
        let Some(close) = close else {
            out.push_str(body);
            return out;
        };
        let text = &body[..close];
        match text.char_indices().nth(QUOTED_CHARS) {
            None => out.push_str(text),
            Some((end, _)) => {
                // Never end inside an escape (`\"`, `\u00e9`): cut before it.
                let kept = &text[..end];
                let kept = match kept.rfind('\\') {
                    Some(i) if kept.len() - i <= 6 => &kept[..i],
                    _ => kept,
                };
                out.push_str(kept);
                out.push('…');
            }
        }
        out.push('"');
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A JSON value for a person: `the string "7"`, `the number 7`, `a list of 2 items`.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", quoted(s)),
        Value::Array(items) if items.len() == 1 => "a list of 1 item".to_string(),
        Value::Array(items) => format!("a list of {} items", items.len()),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A value of the input as an error message quotes it: a string in double quotes
/// cut to [`QUOTED_CHARS`] characters, a number as JSON writes it (`1e+308`, never
/// 309 digits), a short list or object as written, a longer one described (`a
/// list of 3 items`). Every message that echoes a value goes through this or
/// [`shown_text`], so that a megabyte sent is never a megabyte answered.
pub fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => shown_text(text),
        Value::Array(_) | Value::Object(_) => {
            let mut written = Capped(Vec::new());
            match serde_json::to_writer(&mut written, value) {
                Ok(()) => cut_quotes(&String::from_utf8_lossy(&written.0)),
                Err(_) => describe(value),
            }
        }
        other => other.to_string(),
    }
}

/// A text of the input (a query parameter, a path, a field's name) as an error
/// message quotes it: in double quotes, cut to [`QUOTED_CHARS`] characters.
pub fn shown_text(text: &str) -> String {
    cut_quotes(&quoted(text))
}

/// A number for a message: as written when it is of a plain size, in exponent
/// form when huge or tiny (`1e308`, not 309 digits).
pub fn shown_number(x: f64) -> String {
    if x == 0.0 || (1e-6..1e6).contains(&x.abs()) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Collects a value's JSON text up to a few lines' worth, and fails past it.
struct Capped(Vec<u8>);

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > 2 * QUOTED_CHARS {
            return Err(std::io::Error::other("longer than a message quotes"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The most characters of a message built from someone else's words (the
/// recorder's refusal of a line) that an answer carries: quoted values are cut
/// already; this bounds a value echoed without quotes.
pub const MESSAGE_CHARS: usize = 2000;

/// `message` with every quoted text in it cut ([`QUOTED_CHARS`]) and the whole
/// bounded by [`MESSAGE_CHARS`], for a message whose echoes this program did not
/// write itself.
pub fn cut_message(message: &str) -> String {
    let cut = cut_quotes(message);
    match cut.char_indices().nth(MESSAGE_CHARS) {
        None => cut,
        Some((end, _)) => format!("{}…", &cut[..end]),
    }
}

/// `message` with `text`, which it echoes (as written or in Rust's quotes), cut
/// to [`QUOTED_CHARS`] characters, then as [`cut_message`] leaves it: for the
/// message of a parser that echoes its input whole.
pub fn cut_echo(message: &str, text: &str) -> String {
    let short = shortened(text);
    let message = if short.len() < text.len() {
        message.replace(text, &short)
    } else {
        message.to_string()
    };
    cut_message(&message)
}

/// `text` in double quotes, escaped as JSON writes it (as it stands in the log).
fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

fn where_prefix(path: &JsonPath) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_cut_between_escapes_and_short_ones_kept() {
        let escaped = format!(r#"got "{}\"{}" here"#, "a".repeat(58), "b".repeat(10));
        assert_eq!(
            cut_quotes(&escaped),
            format!(r#"got "{}…" here"#, "a".repeat(58))
        );
        for text in [
            r#"field "cards": expected a list, got the string "8S""#,
            r#"unknown suit '"' and "a \"quoted\" word""#,
            r#"an unclosed "quote"#,
            "",
        ] {
            assert_eq!(cut_quotes(text), text);
        }
        let accents = format!(r#""{}""#, "é".repeat(61));
        assert_eq!(cut_quotes(&accents), format!(r#""{}…""#, "é".repeat(60)));
    }

    use crate::cards::Card;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        read: Card,
        confidence: f64,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        cards: Vec<Card>,
        #[serde(default)]
        size: Option<u32>,
        #[serde(default)]
        reads: Vec<Inner>,
        #[serde(default)]
        flag: bool,
    }

    fn reason(json: &str) -> String {
        let value = parse_value(json).expect("JSON");
        from_value::<Line>(&value).expect_err(json).reason
    }

    #[test]
    fn duplicate_keys_are_refused_at_every_depth() {
        let err = parse_value(r#"{"cards":["2S"],"cards":["2H"]}"#).unwrap_err();
        assert_eq!(err.to_string(), r#"duplicate field "cards""#);
        let err = parse_value(r#"{"e":{"frame":"a","frame":"b"}}"#).unwrap_err();
        assert_eq!(err.to_string(), r#"field "e": duplicate field "frame""#);
        let err = parse_value(r#"{"e":{"reads":[{},{"x":1,"x":2}]}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"field "e.reads", item 2: duplicate field "x""#
        );
        let err = parse_slice(br#"[{"a":1,"a":1}]"#).unwrap_err();
        assert_eq!(err.to_string(), r#"item 1: duplicate field "a""#);
    }

    #[test]
    fn good_json_reads_as_serde_json_reads_it() {
        let text = r#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"c":"\u00e9"}"#;
        let strict = parse_value(text).expect("JSON");
        let plain: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(strict, plain);
    }

    #[test]
    fn syntax_errors_keep_line_and_column() {
        match parse_value("{\"a\":\n[1,]}") {
            Err(JsonInputError::Syntax { line, column, .. }) => {
                assert_eq!((line, column), (2, 4));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_value(r#"{"a":1} x"#),
            Err(JsonInputError::Syntax { .. })
        ));
        assert!(matches!(
            parse_slice(b"{\"a\":\"\xff\"}"),
            Err(JsonInputError::Syntax { .. })
        ));
    }

    #[test]
    fn a_wrong_type_names_the_field_in_the_logs_words() {
        assert_eq!(
            reason(r#"{"cards":["2S"],"size":"7"}"#),
            r#"field "size": expected a whole number, got the string "7""#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"size":-1}"#),
            r#"field "size": expected a whole number from 0 to 4294967295, got the number -1"#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"size":99999999999}"#),
            r#"field "size": expected a whole number from 0 to 4294967295, got the number 99999999999"#
        );
        // Past any 64-bit integer: read as floating point, but written as a whole number.
        for huge in [
            "99999999999999999999999",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            let said = reason(&format!(r#"{{"cards":["2S"],"size":{huge}}}"#));
            assert!(
                said.starts_with(
                    r#"field "size": expected a whole number from 0 to 4294967295, got"#
                ),
                "{huge}: {said}"
            );
        }
        assert_eq!(
            reason(r#"{"cards":["2S"],"size":14.0}"#),
            r#"field "size": expected a whole number written without a decimal point, got the number 14.0"#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"size":1.5}"#),
            r#"field "size": expected a whole number, got the number 1.5"#
        );
        assert_eq!(
            reason(r#"{"cards":"8S"}"#),
            r#"field "cards": expected a list, got the string "8S""#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"flag":1}"#),
            r#"field "flag": expected true or false, got the number 1"#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"reads":["x"]}"#),
            r#"field "reads", item 1: expected an object, got the string "x""#
        );
        assert_eq!(
            reason(r#"{"cards":["2S"],"reads":[{"read":"2S","confidence":"high"}]}"#),
            r#"field "reads", item 1, field "confidence": expected a number, got the string "high""#
        );
    }

    #[test]
    fn a_bad_card_in_a_list_says_which() {
        assert_eq!(
            reason(r#"{"cards":["2S","3S","1X"]}"#),
            r#"field "cards", card 3: "1X": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"#
        );
        assert_eq!(
            reason(r#"{"cards":["2S",5]}"#),
            r#"field "cards", item 2: expected a string, got the number 5"#
        );
        assert!(reason(r#"{"cards":[""]}"#).starts_with(r#"field "cards", card 1: empty card"#));
    }

    #[test]
    fn unknown_and_missing_fields_are_named_once() {
        let text = reason(r#"{"cards":["2S"],"pik":1}"#);
        assert!(
            text.starts_with(r#"unknown field "pik", expected one of"#),
            "{text}"
        );
        assert_eq!(reason(r#"{}"#), r#"missing field "cards""#);
        assert_eq!(
            reason(r#"{"cards":[],"reads":[{"read":"2S"}]}"#),
            r#"field "reads", item 1: missing field "confidence""#
        );
    }

    #[test]
    fn no_rust_type_name_leaks() {
        for text in [
            r#"{"cards":["2S"],"reads":{"a":1}}"#,
            r#"{"cards":["2S"],"reads":[[1]]}"#,
            r#"{"cards":{"a":1}}"#,
        ] {
            let r = reason(text);
            for rust in ["struct", "Inner", "u32", "f64", "sequence", "`"] {
                assert!(!r.contains(rust), "{text}: {r}");
            }
        }
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Call {
        Right,
        Wrong,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Said {
        says: Call,
    }

    #[test]
    fn a_closed_list_given_an_object_names_its_values() {
        for text in [r#"{"says":{}}"#, r#"{"says":{"a":1,"b":2}}"#] {
            let value = parse_value(text).expect("JSON");
            assert_eq!(
                from_value::<Said>(&value).expect_err(text).reason,
                r#"field "says": expected "right" or "wrong", got an object"#
            );
        }
        let value = parse_value(r#"{"says":"wrong"}"#).expect("JSON");
        assert_eq!(
            from_value::<Said>(&value).expect("a value").says,
            Call::Wrong
        );
    }

    #[test]
    fn a_lone_surrogate_is_said_to_be_one() {
        for text in [
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            r#"{"a":"\ud800\n"}"#,
        ] {
            match parse_value(text) {
                Err(JsonInputError::Syntax { message, .. }) => {
                    assert_eq!(message, LONE_SURROGATE, "{text}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        // A pair is one character.
        assert_eq!(
            parse_value(r#""\ud83c\udca1""#).expect("a pair"),
            Value::String("🂡".into())
        );
    }

    #[test]
    fn values_are_shown_short() {
        let long = "x".repeat(1000);
        let cut = format!("\"{}…\"", "x".repeat(QUOTED_CHARS));
        assert_eq!(shown(&Value::String(long.clone())), cut);
        assert_eq!(shown(&serde_json::json!("ok")), r#""ok""#);
        assert_eq!(shown(&serde_json::json!(1e308)), "1e+308");
        assert_eq!(shown(&serde_json::json!([1, "a"])), r#"[1,"a"]"#);
        assert_eq!(shown(&serde_json::json!([long])), "a list of 1 item");
        assert_eq!(
            shown(&serde_json::json!(vec![0; 1000])),
            "a list of 1000 items"
        );
        assert_eq!(shown(&serde_json::json!({ "a": long })), "an object");
        assert_eq!(shown(&Value::Null), "null");
        assert_eq!(shown_text(&long), cut);
        assert_eq!(shown_number(1e308), "1e308");
        assert_eq!(shown_number(-1e-320), "-1e-320");
        assert_eq!(shown_number(0.75), "0.75");
        assert_eq!(shown_number(-40.0), "-40");
        assert_eq!(shown_number(0.0), "0");
        assert_eq!(
            cut_echo(&format!("{long:?} is not four numbers"), &long),
            format!("{cut} is not four numbers")
        );
        assert_eq!(
            cut_echo(&format!("{long} is not a zone"), &long),
            format!("{}… is not a zone", "x".repeat(QUOTED_CHARS))
        );
        let unquoted = format!("got [{}]", vec!["1"; 5000].join(","));
        assert_eq!(cut_message(&unquoted).chars().count(), MESSAGE_CHARS + 1);
        assert_eq!(cut_message("short"), "short");
    }

    #[test]
    fn an_object_only_type_refuses_a_list_of_its_values() {
        let value = parse_value(r#"{"r":["2S",0.5]}"#).expect("JSON");
        let object = value.as_object().expect("object");
        let err = check_field::<ObjectOnly<Inner>>(object, "r").unwrap_err();
        assert_eq!(
            err.reason,
            r#"field "r": expected an object, got a list of 2 items"#
        );
        // serde alone reads it.
        assert!(check_field::<Inner>(object, "r").is_ok());
        let value = parse_value(r#"{"r":{"read":"2S","confidence":0.5,"x":1}}"#).expect("JSON");
        let object = value.as_object().expect("object");
        let err = check_field::<ObjectOnly<Inner>>(object, "r").unwrap_err();
        assert!(
            err.reason.starts_with(r#"field "r": unknown field "x""#),
            "{}",
            err.reason
        );
        let value = parse_value(r#"{"read":"2S","confidence":0.5}"#).expect("JSON");
        let read = from_value::<ObjectOnly<Inner>>(&value).expect("an object");
        assert_eq!(read.0.confidence, 0.5);
    }

    #[test]
    fn check_field_prefixes_the_field() {
        let value = parse_value(r#"{"evidence":"x"}"#).expect("JSON");
        let Value::Object(object) = value else {
            panic!("object")
        };
        let err = check_field::<Inner>(&object, "evidence").unwrap_err();
        assert_eq!(
            err.reason,
            r#"field "evidence": expected an object, got the string "x""#
        );
        assert!(check_field::<Inner>(&object, "absent").is_ok());
    }
}
