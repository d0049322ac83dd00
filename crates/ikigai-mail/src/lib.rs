//! The inter-agent mail store.
//!
//! One SQLite database file holds every session's agents and mail
//! ([`location`] says which file). [`Store`] is a connection scoped to one
//! session: agents are registered in it ([`Store::register_agent`]), mail
//! is sent between them ([`Store::send`]), listed ([`Store::inbox`], which
//! never changes read state), read ([`Store::read`]), archived or deleted
//! ([`Store::delete`]); [`Store::take_notification`] gives a harness the
//! "you have mail" line once per batch of unread mail.
//!
//! Concurrency: WAL (readers never block the writer), a busy timeout, and
//! `BEGIN IMMEDIATE` for every transaction that writes, so concurrent
//! writers queue instead of failing with `SQLITE_BUSY` halfway through a
//! read-then-write. Commits use `synchronous=NORMAL`: a killed process never
//! loses an acknowledged message (the WAL is written before the commit
//! returns); only a power loss may drop the last few.
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! use ikigai_mail::{NewMessage, Store, InboxFilter};
//! let store = Store::open(&dir.path().join("ikigai.db"), "s1").unwrap();
//! store.register_agent("0/").unwrap();
//! store.register_agent("1/").unwrap();
//! let sent = store.send("1/", "0/", NewMessage::text("Build complete")).unwrap();
//! let inbox = store.inbox("0/", &InboxFilter::default()).unwrap();
//! assert_eq!(inbox.unread_count, 1);
//! assert_eq!(inbox.messages[0].id, sent.id);
//! ```

mod error;
pub mod location;
mod message;
mod schema;
mod store;
pub mod text;

pub use error::MailError;
pub use message::{InboxFilter, Message, MessageType, NewMessage, Priority};
pub use store::{
    DEFAULT_SESSION, Inbox, MAX_BODY_BYTES, Sent, Store, StoreOptions, validate_agent_id,
};
