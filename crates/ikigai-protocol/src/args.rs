use crate::ToolError;
use serde_json::{Map, Value};

/// A tool's arguments after [`crate::Schema::parse_args`] validated them.
///
/// Every present value already has its declared type, so the getters only
/// return `None` for an absent (or `null`) parameter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    map: Map<String, Value>,
}

impl Args {
    pub(crate) fn new(map: Map<String, Value>) -> Args {
        Args { map }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.map.get(name).and_then(Value::as_str)
    }

    /// A parameter the schema lists as required (so validation guaranteed
    /// it), still returned as a `Result` rather than unwrapped.
    pub fn required_str(&self, name: &str) -> Result<&str, ToolError> {
        self.str(name)
            .ok_or_else(|| ToolError::invalid_arg(format!("Missing required parameter: {name}")))
    }

    /// A required path parameter, which may not be empty.
    pub fn required_path(&self, name: &str) -> Result<&str, ToolError> {
        match self.required_str(name)? {
            "" => Err(ToolError::invalid_arg(format!(
                "Invalid value for parameter {name}: the path is empty"
            ))),
            path => Ok(path),
        }
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        self.map.get(name).and_then(Value::as_i64)
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.map.get(name).and_then(Value::as_bool)
    }

    pub fn str_list(&self, name: &str) -> Option<Vec<String>> {
        self.map.get(name).and_then(Value::as_array).map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
    }

    /// A string parameter that must be one of `allowed`.
    pub fn one_of(&self, name: &str, allowed: &[&str]) -> Result<Option<&str>, ToolError> {
        match self.str(name) {
            None => Ok(None),
            Some(v) if allowed.contains(&v) => Ok(Some(v)),
            Some(v) => Err(ToolError::invalid_arg(format!(
                "Invalid value for parameter {name}: {v} (expected one of: {})",
                allowed.join(", ")
            ))),
        }
    }

    /// An integer parameter that must be at least `min`.
    pub fn int_at_least(&self, name: &str, min: i64) -> Result<Option<i64>, ToolError> {
        match self.int(name) {
            Some(v) if v < min => Err(ToolError::invalid_arg(format!(
                "Invalid value for parameter {name}: {v} (must be at least {min})"
            ))),
            other => Ok(other),
        }
    }
}
