//! The discovered tools and the arrays handed to a model.

use crate::dirs::Source;
use ikigai_protocol::Schema;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One usable tool.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub name: String,
    pub path: PathBuf,
    pub source: Source,
    pub schema: Schema,
}

/// The tools a host offers, by name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, ToolEntry>,
}

/// The formats [`Registry::export`] produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{"type": "function", "function": {name, description, parameters}}`
    OpenAi,
    /// `{name, description, input_schema}`
    Anthropic,
    /// The `--schema` objects as the tools print them.
    Raw,
}

impl Registry {
    pub fn new(entries: impl IntoIterator<Item = ToolEntry>) -> Registry {
        Registry {
            tools: entries.into_iter().map(|e| (e.name.clone(), e)).collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.get(name)
    }

    /// Tools in name order.
    pub fn iter(&self) -> impl Iterator<Item = &ToolEntry> {
        self.tools.values()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool array for a model, in name order.
    pub fn export(&self, format: Format) -> Value {
        Value::Array(self.iter().map(|t| export_one(&t.schema, format)).collect())
    }
}

/// One tool's schema in `format`. The schema's own objects are copied
/// unchanged, so a tool's extensions appear exactly as it declares them.
pub fn export_one(schema: &Schema, format: Format) -> Value {
    match format {
        Format::OpenAi => json!({
            "type": "function",
            "function": {
                "name": schema.name(),
                "description": schema.description(),
                "parameters": schema.parameters(),
            }
        }),
        Format::Anthropic => json!({
            "name": schema.name(),
            "description": schema.description(),
            "input_schema": schema.parameters(),
        }),
        Format::Raw => schema.as_value().clone(),
    }
}
