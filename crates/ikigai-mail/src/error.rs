use std::path::PathBuf;

/// Everything that can go wrong in the mail store. The tool maps each
/// variant to its error object; the messages that the spec fixes are
/// exactly the spec's (`Agent 99/ not found`, `Message #5 not found`,
/// `Message body cannot be empty`).
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("Cannot open mail database: {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("Cannot create the mail database directory: {}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Mail database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error(
        "Mail database schema version {found} is newer than this program supports ({supported})"
    )]
    SchemaTooNew { found: i64, supported: i64 },
    #[error("No mail database location: set IKIGAI_DB, IKIGAI_STATE_DIR, XDG_STATE_HOME or HOME")]
    NoLocation,
    #[error("Agent {0} not found")]
    AgentNotFound(String),
    #[error("Message #{0} not found")]
    MessageNotFound(i64),
    #[error("Invalid agent id {id:?}: {reason}")]
    InvalidAgentId { id: String, reason: &'static str },
    #[error("Message body cannot be empty")]
    EmptyBody,
    #[error("Message body too large: {len} bytes (limit {limit})")]
    BodyTooLarge { len: usize, limit: usize },
}

impl MailError {
    /// The underlying reason, for the error object's `detail`.
    pub fn detail(&self) -> Option<String> {
        match self {
            MailError::Open { source, .. } => Some(source.to_string()),
            MailError::CreateDir { source, .. } => Some(source.to_string()),
            _ => None,
        }
    }
}
