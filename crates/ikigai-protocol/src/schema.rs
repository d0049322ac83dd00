use crate::{Args, ToolError};
use serde_json::{Map, Value};

/// Why a `--schema` object was refused.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("schema is not valid JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    #[error("schema is not a JSON object")]
    NotObject,
    #[error("schema field `{0}` is missing")]
    MissingField(&'static str),
    #[error("schema field `{field}` must be {expected}")]
    WrongType {
        field: String,
        expected: &'static str,
    },
    #[error("schema lists `{0}` as required but does not define it")]
    UnknownRequired(String),
}

/// The declared JSON type of one parameter, as far as validation needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    StringArray,
    Array,
    Object,
    Any,
}

impl ParamType {
    fn from_property(property: &Value) -> ParamType {
        match property.get("type").and_then(Value::as_str) {
            Some("string") => ParamType::String,
            Some("integer") => ParamType::Integer,
            Some("number") => ParamType::Number,
            Some("boolean") => ParamType::Boolean,
            Some("object") => ParamType::Object,
            Some("array") => {
                let items = property.get("items").and_then(|i| i.get("type"));
                if items.and_then(Value::as_str) == Some("string") {
                    ParamType::StringArray
                } else {
                    ParamType::Array
                }
            }
            _ => ParamType::Any,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::StringArray => "array of strings",
            ParamType::Array => "array",
            ParamType::Object => "object",
            ParamType::Any => "any value",
        }
    }
}

/// A tool's `--schema` object: `{"name", "description", "parameters"}`.
///
/// Keeps the exact JSON (key order included, so `--schema` prints what the
/// spec prints) plus what argument validation needs.
#[derive(Debug, Clone)]
pub struct Schema {
    value: Value,
    name: String,
    description: String,
    properties: Vec<(String, ParamType)>,
    required: Vec<String>,
}

impl Schema {
    /// Parses and validates a schema from its JSON text.
    pub fn parse(text: &str) -> Result<Schema, SchemaError> {
        Schema::from_value(serde_json::from_str(text)?)
    }

    /// Validates a schema already parsed into a JSON value.
    pub fn from_value(value: Value) -> Result<Schema, SchemaError> {
        let object = value.as_object().ok_or(SchemaError::NotObject)?;
        let name = string_field(object, "name")?.to_owned();
        let description = string_field(object, "description")?.to_owned();
        let parameters = object
            .get("parameters")
            .ok_or(SchemaError::MissingField("parameters"))?
            .as_object()
            .ok_or_else(|| wrong_type("parameters", "an object"))?;
        let mut properties = Vec::new();
        if let Some(props) = parameters.get("properties") {
            let props = props
                .as_object()
                .ok_or_else(|| wrong_type("parameters.properties", "an object"))?;
            for (key, property) in props {
                if !property.is_object() {
                    return Err(wrong_type(
                        &format!("parameters.properties.{key}"),
                        "an object",
                    ));
                }
                properties.push((key.clone(), ParamType::from_property(property)));
            }
        }
        let mut required = Vec::new();
        if let Some(list) = parameters.get("required") {
            let list = list
                .as_array()
                .ok_or_else(|| wrong_type("parameters.required", "an array of strings"))?;
            for item in list {
                let key = item
                    .as_str()
                    .ok_or_else(|| wrong_type("parameters.required", "an array of strings"))?;
                if !properties.iter().any(|(name, _)| name == key) {
                    return Err(SchemaError::UnknownRequired(key.to_owned()));
                }
                required.push(key.to_owned());
            }
        }
        Ok(Schema {
            value,
            name,
            description,
            properties,
            required,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    /// The `parameters` object (a JSON Schema).
    pub fn parameters(&self) -> &Value {
        // `from_value` checked that `parameters` exists.
        self.value.get("parameters").unwrap_or(&Value::Null)
    }

    /// The whole `--schema` object.
    pub fn as_value(&self) -> &Value {
        &self.value
    }

    /// Parameter names in schema order.
    pub fn parameter_names(&self) -> impl Iterator<Item = &str> {
        self.properties.iter().map(|(name, _)| name.as_str())
    }

    /// Parses a tool's stdin into validated arguments.
    ///
    /// Order of checks: JSON syntax and shape, unknown parameters (named, so
    /// a model learns the schema instead of believing an invented option
    /// took effect), types, then required parameters. `null` counts as
    /// absent. Integers may come as strings of digits and booleans as
    /// `"true"`/`"false"`, since models send them that way; both are
    /// normalised before the tool sees them.
    pub fn parse_args(&self, input: &[u8]) -> Result<Args, ToolError> {
        if input.iter().all(u8::is_ascii_whitespace) {
            return Err(ToolError::invalid_json(
                "empty input: expected a JSON object",
            ));
        }
        let value: Value =
            serde_json::from_slice(input).map_err(|e| ToolError::invalid_json(e.to_string()))?;
        self.validate_args(value)
    }

    /// Validates arguments that are already a JSON value.
    pub fn validate_args(&self, value: Value) -> Result<Args, ToolError> {
        let Value::Object(object) = value else {
            return Err(ToolError::invalid_json(format!(
                "expected a JSON object, got {}",
                kind_of(&value)
            )));
        };
        let mut map = Map::new();
        for (key, value) in object {
            let Some(&(_, kind)) = self.properties.iter().find(|(name, _)| *name == key) else {
                return Err(ToolError::invalid_arg(format!("Unknown parameter: {key}"))
                    .with_detail(self.accepts_detail()));
            };
            if value.is_null() {
                continue;
            }
            let value = normalise(kind, value).map_err(|got| {
                ToolError::invalid_arg(format!(
                    "Invalid type for parameter {key}: expected {}, got {got}",
                    kind.name()
                ))
            })?;
            map.insert(key, value);
        }
        for key in &self.required {
            if !map.contains_key(key) {
                return Err(ToolError::invalid_arg(format!(
                    "Missing required parameter: {key}"
                )));
            }
        }
        Ok(Args::new(map))
    }

    fn accepts_detail(&self) -> String {
        let names: Vec<&str> = self.parameter_names().collect();
        format!("{} accepts: {}", self.name, names.join(", "))
    }
}

fn string_field<'a>(
    object: &'a Map<String, Value>,
    field: &'static str,
) -> Result<&'a str, SchemaError> {
    object
        .get(field)
        .ok_or(SchemaError::MissingField(field))?
        .as_str()
        .ok_or_else(|| wrong_type(field, "a string"))
}

fn wrong_type(field: &str, expected: &'static str) -> SchemaError {
    SchemaError::WrongType {
        field: field.to_owned(),
        expected,
    }
}

/// Describes a value for an error message: its JSON kind and, for short
/// scalars, the value itself.
fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) if s.chars().count() <= 40 => {
            format!("string {}", Value::from(s.as_str()))
        }
        Value::String(_) => "a long string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Checks `value` against `kind`, converting the forms models commonly send
/// (`"42"` for 42, `"true"` for true, `5.0` for 5). On mismatch returns the
/// description of what was found.
fn normalise(kind: ParamType, value: Value) -> Result<Value, String> {
    let ok = match (kind, &value) {
        (ParamType::Any, _) => true,
        (ParamType::String, Value::String(_)) => true,
        (ParamType::Boolean, Value::Bool(_)) => true,
        (ParamType::Number, Value::Number(_)) => true,
        (ParamType::Object, Value::Object(_)) => true,
        (ParamType::Array, Value::Array(_)) => true,
        (ParamType::StringArray, Value::Array(items)) => items.iter().all(Value::is_string),
        (ParamType::Integer, Value::Number(n)) => {
            if n.is_i64() {
                true
            } else if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                #[allow(clippy::cast_possible_truncation)]
                return Ok(Value::from(f as i64));
            } else {
                false
            }
        }
        (ParamType::Integer, Value::String(s)) => {
            let t = s.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && let Ok(n) = t.parse::<i64>()
            {
                return Ok(Value::from(n));
            }
            false
        }
        (ParamType::Number, Value::String(s)) => {
            if let Ok(f) = s.trim().parse::<f64>()
                && f.is_finite()
            {
                return Ok(Value::from(f));
            }
            false
        }
        (ParamType::Boolean, Value::String(s)) => match s.as_str() {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ => false,
        },
        _ => false,
    };
    if ok { Ok(value) } else { Err(kind_of(&value)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    const SCHEMA: &str = r#"{"name":"file_read","description":"Read contents of a file","parameters":{"type":"object","properties":{"file_path":{"type":"string","description":"p"},"offset":{"type":"integer","description":"o"},"all":{"type":"boolean","description":"a"},"tags":{"type":"array","items":{"type":"string"},"description":"t"}},"required":["file_path"]}}"#;

    fn schema() -> Schema {
        Schema::parse(SCHEMA).unwrap()
    }

    #[test]
    fn keeps_key_order() {
        let s = schema();
        let text = serde_json::to_string(s.as_value()).unwrap();
        assert_eq!(text, SCHEMA);
    }

    #[test]
    fn accepts_valid_and_normalises() {
        let args = schema()
            .parse_args(br#"{"file_path":"a","offset":" 7 ","all":"true","tags":["x"]}"#)
            .unwrap();
        assert_eq!(args.str("file_path"), Some("a"));
        assert_eq!(args.int("offset"), Some(7));
        assert_eq!(args.bool("all"), Some(true));
        let args = schema()
            .parse_args(br#"{"file_path":"a","offset":3.0}"#)
            .unwrap();
        assert_eq!(args.int("offset"), Some(3));
    }

    #[test]
    fn null_is_absent() {
        let args = schema()
            .parse_args(br#"{"file_path":"a","offset":null}"#)
            .unwrap();
        assert_eq!(args.int("offset"), None);
        let err = schema().parse_args(br#"{"file_path":null}"#).unwrap_err();
        assert_eq!(err.message, "Missing required parameter: file_path");
    }

    #[test]
    fn rejects_bad_input() {
        let s = schema();
        let cases: &[(&[u8], ErrorCode, &str)] = &[
            (b"", ErrorCode::InvalidJson, "Invalid JSON arguments"),
            (b"  \n", ErrorCode::InvalidJson, "Invalid JSON arguments"),
            (b"{", ErrorCode::InvalidJson, "Invalid JSON arguments"),
            (b"[1]", ErrorCode::InvalidJson, "Invalid JSON arguments"),
            (
                b"{}",
                ErrorCode::InvalidArg,
                "Missing required parameter: file_path",
            ),
            (
                br#"{"file_path":1}"#,
                ErrorCode::InvalidArg,
                "Invalid type for parameter file_path: expected string, got number 1",
            ),
            (
                br#"{"file_path":"a","offset":"x"}"#,
                ErrorCode::InvalidArg,
                "Invalid type for parameter offset: expected integer, got string \"x\"",
            ),
            (
                br#"{"file_path":"a","offset":1.5}"#,
                ErrorCode::InvalidArg,
                "Invalid type for parameter offset: expected integer, got number 1.5",
            ),
            (
                br#"{"file_path":"a","offset":"99999999999999999999"}"#,
                ErrorCode::InvalidArg,
                "Invalid type for parameter offset: expected integer, got string \"99999999999999999999\"",
            ),
            (
                br#"{"file_path":"a","tags":[1]}"#,
                ErrorCode::InvalidArg,
                "Invalid type for parameter tags: expected array of strings, got an array",
            ),
            (
                br#"{"file_path":"a","bogus":1}"#,
                ErrorCode::InvalidArg,
                "Unknown parameter: bogus",
            ),
        ];
        for (input, code, message) in cases {
            let err = s.parse_args(input).unwrap_err();
            assert_eq!(
                (err.code, err.message.as_str()),
                (*code, *message),
                "{}",
                String::from_utf8_lossy(input)
            );
        }
        let err = s.parse_args(br#"{"bogus":1}"#).unwrap_err();
        assert_eq!(
            err.detail.as_deref(),
            Some("file_read accepts: file_path, offset, all, tags")
        );
    }

    #[test]
    fn rejects_bad_schemas() {
        assert!(matches!(Schema::parse("[]"), Err(SchemaError::NotObject)));
        assert!(matches!(
            Schema::parse(r#"{"name":"x","description":"d"}"#),
            Err(SchemaError::MissingField("parameters"))
        ));
        assert!(matches!(
            Schema::from_value(
                json!({"name":"x","description":"d","parameters":{"type":"object","properties":{},"required":["a"]}})
            ),
            Err(SchemaError::UnknownRequired(_))
        ));
        assert!(matches!(
            Schema::from_value(json!({"name":1,"description":"d","parameters":{}})),
            Err(SchemaError::WrongType { .. })
        ));
    }
}
