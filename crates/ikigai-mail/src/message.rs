use std::fmt;

/// A message's type (the peer feature set's five kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType {
    Status,
    Alert,
    Task,
    Question,
    Response,
}

/// A message's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    Urgent,
    Normal,
    Low,
}

macro_rules! string_enum {
    ($t:ty, $($variant:ident => $text:literal),+) => {
        impl $t {
            pub const ALL: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some(Self::$variant),)+ _ => None }
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(MessageType, Status => "status", Alert => "alert", Task => "task", Question => "question", Response => "response");
string_enum!(Priority, Urgent => "urgent", Normal => "normal", Low => "low");

/// A message to send.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewMessage {
    pub body: String,
    pub subject: Option<String>,
    pub kind: Option<MessageType>,
    pub priority: Option<Priority>,
    pub tags: Vec<String>,
    pub needs_response: bool,
    /// The id of the message this one answers; replies share its thread.
    pub in_reply_to: Option<i64>,
}

impl NewMessage {
    /// A plain message with only a body.
    pub fn text(body: impl Into<String>) -> NewMessage {
        NewMessage {
            body: body.into(),
            ..NewMessage::default()
        }
    }
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: i64,
    pub from: String,
    pub to: String,
    pub body: String,
    /// Seconds since the Unix epoch.
    pub timestamp: i64,
    pub read: bool,
    pub archived: bool,
    pub subject: Option<String>,
    pub kind: Option<MessageType>,
    pub priority: Option<Priority>,
    pub tags: Vec<String>,
    pub needs_response: bool,
    pub in_reply_to: Option<i64>,
    pub thread_id: Option<i64>,
}

/// What an inbox listing shows. The default is the spec's inbox: every
/// live (not archived) message, unread first, then newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InboxFilter {
    pub unread_only: bool,
    pub from: Option<String>,
    pub kind: Option<MessageType>,
    pub priority: Option<Priority>,
    pub needs_response: Option<bool>,
    /// Only messages sent at or after this time (Unix seconds).
    pub since: Option<i64>,
    /// Most messages listed.
    pub limit: Option<u64>,
    /// Also list archived messages.
    pub include_archived: bool,
}
