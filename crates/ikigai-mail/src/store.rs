use crate::schema;
use crate::{InboxFilter, MailError, Message, MessageType, NewMessage, Priority};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The session used when none is given (`IKIGAI_SESSION_ID` unset).
pub const DEFAULT_SESSION: &str = "default";

/// Largest message body accepted, in bytes. Larger bodies are refused, never
/// truncated.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// How long a writer waits for another to finish before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest agent id, in characters.
const MAX_AGENT_ID: usize = 64;

/// How a connection will be used, which decides how it moves the
/// write-ahead log into the database (checkpoints).
///
/// A process that opens the store while no other connection is open must
/// first rebuild the log's index by reading every frame of the log (WAL
/// recovery), and recovery also forgets which frames were already
/// checkpointed. So when each call is its own process, the log file itself
/// must be kept short: [`StoreOptions::ONE_SHOT`] truncates it once it
/// passes 256 KiB. A long-lived connection instead hands checkpoints to a
/// background thread, so its writes never wait for the checkpoint's
/// `fsync`s ([`StoreOptions::LONG_LIVED`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOptions {
    /// Truncate the log after a write once it is larger than this many
    /// bytes; no automatic checkpoints.
    TruncateAbove(u64),
    /// Checkpoint from a background thread every this many commits; block
    /// for a checkpoint only if the log still grows past 64 MiB.
    BackgroundEvery(u32),
}

impl StoreOptions {
    /// For a process that makes one call and exits (the mail tool, the CLI).
    pub const ONE_SHOT: StoreOptions = StoreOptions::TruncateAbove(256 * 1024);
    /// For a connection that stays open (a harness, a server).
    pub const LONG_LIVED: StoreOptions = StoreOptions::BackgroundEvery(256);
}

/// Log size past which a long-lived writer checkpoints itself, waiting.
const WAL_HARD_LIMIT: u64 = 64 * 1024 * 1024;

/// A second connection that runs checkpoints on its own thread when
/// nudged, so the writer never waits for their `fsync`s. Stopped and
/// joined when the store is dropped.
#[derive(Debug)]
struct Checkpointer {
    nudge: Option<std::sync::mpsc::SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    fn start(path: &Path) -> Option<Checkpointer> {
        let conn = Connection::open(path).ok()?;
        conn.busy_timeout(Duration::from_secs(5)).ok()?;
        let (nudge, nudged) = std::sync::mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("ikigai-mail-checkpoint".into())
            .spawn(move || {
                while nudged.recv().is_ok() {
                    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            })
            .ok()?;
        Some(Checkpointer {
            nudge: Some(nudge),
            thread: Some(thread),
        })
    }

    fn nudge(&self) {
        if let Some(n) = &self.nudge {
            // A full channel means a checkpoint is already due.
            let _ = n.try_send(());
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.nudge.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions::LONG_LIVED
    }
}

/// A connection to the mail store, scoped to one session.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    session: String,
    /// The log file and how it is kept in check (see [`StoreOptions`]).
    wal: std::path::PathBuf,
    options: StoreOptions,
    checkpointer: Option<Checkpointer>,
    commits: std::cell::Cell<u32>,
}

/// What [`Store::send`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    pub id: i64,
    pub thread_id: i64,
}

/// An inbox listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbox {
    pub messages: Vec<Message>,
    /// Unread live messages in the whole inbox, whatever the filter.
    pub unread_count: u64,
    /// More messages matched than the limit let through.
    pub truncated: bool,
}

/// Checks an agent id: 1 to 64 printable characters, no whitespace.
pub fn validate_agent_id(id: &str) -> Result<(), MailError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.chars().count() > MAX_AGENT_ID {
        Some("it is longer than 64 characters")
    } else if id.chars().any(char::is_whitespace) {
        Some("it contains whitespace")
    } else if id.chars().any(char::is_control) {
        Some("it contains control characters")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(MailError::InvalidAgentId {
            id: id.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

const MESSAGE_COLUMNS: &str = "id, from_agent_id, to_agent_id, body, timestamp, read, archived, subject, type, priority, tags, needs_response, in_reply_to, COALESCE(thread_id, id)";

fn message_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Message> {
    let tags: Option<String> = row.get(10)?;
    Ok(Message {
        id: row.get(0)?,
        from: row.get(1)?,
        to: row.get(2)?,
        body: row.get(3)?,
        timestamp: row.get(4)?,
        read: row.get(5)?,
        archived: row.get(6)?,
        subject: row.get(7)?,
        kind: row
            .get::<_, Option<String>>(8)?
            .as_deref()
            .and_then(MessageType::parse),
        priority: row
            .get::<_, Option<String>>(9)?
            .as_deref()
            .and_then(Priority::parse),
        tags: tags
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
        needs_response: row.get(11)?,
        in_reply_to: row.get(12)?,
        thread_id: row.get(13)?,
    })
}

impl Store {
    /// Opens (creating it and its directory when missing) the database at
    /// `path`, brings its schema up to date, and scopes to `session`, for a
    /// long-lived connection.
    pub fn open(path: &Path, session: &str) -> Result<Store, MailError> {
        Store::open_with(path, session, StoreOptions::default())
    }

    /// [`Store::open`] with explicit [`StoreOptions`].
    pub fn open_with(
        path: &Path,
        session: &str,
        options: StoreOptions,
    ) -> Result<Store, MailError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| MailError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let open_error = |source| MailError::Open {
            path: path.to_path_buf(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let mut conn = Connection::open_with_flags(path, flags).map_err(open_error)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_error)?;
        // Small pages keep each commit's WAL frames small (a send changes a
        // few rows in two B-trees); only takes effect on a new database.
        conn.pragma_update(None, "page_size", 1024)
            .map_err(open_error)?;
        // WAL is a property of the file: set it once, not on every open.
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(open_error)?;
        if !mode.eq_ignore_ascii_case("wal") {
            conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
                .map_err(open_error)?;
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_error)?;
        // Checkpoint by log size, never on close: a tool process opens the
        // store for one call, and a checkpoint on close (two fsyncs) would
        // cost more than the call itself. See `StoreOptions` for the size.
        // Checkpoints are ours to schedule (see `StoreOptions`).
        conn.pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(open_error)?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(open_error)?;
        schema::migrate(&mut conn).map_err(|e| match e {
            MailError::Database(source) => open_error(source),
            other => other,
        })?;
        let checkpointer = match options {
            StoreOptions::BackgroundEvery(_) => Checkpointer::start(path),
            StoreOptions::TruncateAbove(_) => None,
        };
        Ok(Store {
            conn,
            session: session.to_owned(),
            wal: std::path::PathBuf::from(wal),
            options,
            checkpointer,
            commits: std::cell::Cell::new(0),
        })
    }

    /// After a write, keep the log in check (see [`StoreOptions`]).
    fn after_write(&self) {
        let wal_len = || std::fs::metadata(&self.wal).map_or(0, |m| m.len());
        match self.options {
            StoreOptions::TruncateAbove(limit) => {
                if wal_len() > limit {
                    // Never wait: if another connection is reading, the
                    // next writer will try again.
                    let _ = self.conn.busy_timeout(Duration::ZERO);
                    let _ = self
                        .conn
                        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
                    let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
                }
            }
            StoreOptions::BackgroundEvery(every) => {
                let n = self.commits.get().wrapping_add(1);
                self.commits.set(n);
                if !n.is_multiple_of(every.max(1)) {
                    return;
                }
                match &self.checkpointer {
                    Some(c) => c.nudge(),
                    None => {
                        let _ = self
                            .conn
                            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    }
                }
                // Under a sustained stream of writes the log never gets a
                // quiet moment to restart; past the limit, restart it here.
                if wal_len() > WAL_HARD_LIMIT {
                    let _ = self
                        .conn
                        .query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()));
                }
            }
        }
    }

    pub fn session(&self) -> &str {
        &self.session
    }

    /// Registers an agent; returns false when it already was.
    pub fn register_agent(&self, agent: &str) -> Result<bool, MailError> {
        validate_agent_id(agent)?;
        let added = self.conn.execute(
            "INSERT OR IGNORE INTO agents (session_id, agent_id, created_at) VALUES (?1, ?2, ?3)",
            params![self.session, agent, now()],
        )?;
        Ok(added == 1)
    }

    pub fn agent_exists(&self, agent: &str) -> Result<bool, MailError> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM agents WHERE session_id = ?1 AND agent_id = ?2")?
            .exists(params![self.session, agent])?)
    }

    /// The session's agents, by id.
    pub fn agents(&self) -> Result<Vec<String>, MailError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT agent_id FROM agents WHERE session_id = ?1 ORDER BY agent_id",
        )?;
        let rows = stmt.query_map(params![self.session], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Sends mail from `from` to `to` (which must be a registered agent;
    /// sending to oneself is fine).
    pub fn send(&self, from: &str, to: &str, message: NewMessage) -> Result<Sent, MailError> {
        if message.body.trim().is_empty() {
            return Err(MailError::EmptyBody);
        }
        if message.body.len() > MAX_BODY_BYTES {
            return Err(MailError::BodyTooLarge {
                len: message.body.len(),
                limit: MAX_BODY_BYTES,
            });
        }
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let exists = tx
            .prepare_cached("SELECT 1 FROM agents WHERE session_id = ?1 AND agent_id = ?2")?
            .exists(params![self.session, to])?;
        if !exists {
            return Err(MailError::AgentNotFound(to.to_owned()));
        }
        let thread = match message.in_reply_to {
            None => None,
            Some(parent) => {
                // A reply must answer mail the sender can see.
                let thread: Option<i64> = tx
                    .prepare_cached(
                        "SELECT COALESCE(thread_id, id) FROM mail WHERE id = ?1 AND session_id = ?2 AND (to_agent_id = ?3 OR from_agent_id = ?3)",
                    )?
                    .query_row(params![parent, self.session, from], |r| r.get(0))
                    .optional()?;
                match thread {
                    Some(t) => Some(t),
                    None => return Err(MailError::MessageNotFound(parent)),
                }
            }
        };
        let tags = if message.tags.is_empty() {
            None
        } else {
            serde_json::to_string(&message.tags).ok()
        };
        tx.prepare_cached(
            "INSERT INTO mail (session_id, from_agent_id, to_agent_id, body, timestamp, subject, type, priority, tags, needs_response, in_reply_to, thread_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            self.session,
            from,
            to,
            message.body,
            now(),
            message.subject,
            message.kind.map(MessageType::as_str),
            message.priority.map(Priority::as_str),
            tags,
            message.needs_response,
            message.in_reply_to,
            thread,
        ])?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        self.after_write();
        Ok(Sent {
            id,
            thread_id: thread.unwrap_or(id),
        })
    }

    /// Lists an inbox (never changing read state) and clears the agent's
    /// notification flag: checking the inbox acknowledges the mail.
    pub fn inbox(&self, agent: &str, filter: &InboxFilter) -> Result<Inbox, MailError> {
        let mut sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM mail WHERE session_id = ?1 AND to_agent_id = ?2"
        );
        let mut values: Vec<SqlValue> = vec![self.session.clone().into(), agent.to_owned().into()];
        let mut bind = |clause: &str, value: SqlValue, sql: &mut String| {
            values.push(value);
            sql.push_str(&format!(" AND {clause} ?{}", values.len()));
        };
        if !filter.include_archived {
            sql.push_str(" AND archived = 0");
        }
        if filter.unread_only {
            sql.push_str(" AND read = 0");
        }
        if let Some(from) = &filter.from {
            bind("from_agent_id =", from.clone().into(), &mut sql);
        }
        if let Some(kind) = filter.kind {
            bind("type =", kind.as_str().to_owned().into(), &mut sql);
        }
        if let Some(priority) = filter.priority {
            bind("priority =", priority.as_str().to_owned().into(), &mut sql);
        }
        if let Some(needs) = filter.needs_response {
            bind("needs_response =", i64::from(needs).into(), &mut sql);
        }
        if let Some(since) = filter.since {
            bind("timestamp >=", since.into(), &mut sql);
        }
        // Unread first, then newest first; the id breaks ties.
        sql.push_str(" ORDER BY read ASC, timestamp DESC, id DESC");
        let limit = filter.limit.unwrap_or(u64::MAX);
        if limit != u64::MAX {
            // One more than asked: tells whether anything was left out.
            values.push(
                i64::try_from(limit.saturating_add(1))
                    .unwrap_or(i64::MAX)
                    .into(),
            );
            sql.push_str(&format!(" LIMIT ?{}", values.len()));
        }
        let mut messages = {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows =
                stmt.query_map(rusqlite::params_from_iter(values.iter()), message_from_row)?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let truncated = messages.len() as u64 > limit;
        if truncated {
            messages.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        let unread_count = self.unread_count(agent)?;
        self.clear_notification(agent)?;
        Ok(Inbox {
            messages,
            unread_count,
            truncated,
        })
    }

    /// Reads one message of the agent's mailbox, marking it read when
    /// `mark_read`, and clears the agent's notification flag. Mail in
    /// another agent's mailbox is "not found".
    pub fn read(&self, agent: &str, id: i64, mark_read: bool) -> Result<Message, MailError> {
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let message = tx
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM mail WHERE id = ?1 AND session_id = ?2 AND to_agent_id = ?3"
            ))?
            .query_row(params![id, self.session, agent], message_from_row)
            .optional()?
            .ok_or(MailError::MessageNotFound(id))?;
        if mark_read && !message.read {
            tx.prepare_cached("UPDATE mail SET read = 1 WHERE id = ?1")?
                .execute(params![id])?;
        }
        tx.prepare_cached(
            "UPDATE agents SET mail_notification_pending = 0 WHERE session_id = ?1 AND agent_id = ?2 AND mail_notification_pending = 1",
        )?
        .execute(params![self.session, agent])?;
        tx.commit()?;
        self.after_write();
        Ok(message)
    }

    /// Archives (kept, listed on request) or deletes for good one message
    /// of the agent's mailbox.
    pub fn delete(&self, agent: &str, id: i64, archive: bool) -> Result<(), MailError> {
        let sql = if archive {
            "UPDATE mail SET archived = 1 WHERE id = ?1 AND session_id = ?2 AND to_agent_id = ?3"
        } else {
            "DELETE FROM mail WHERE id = ?1 AND session_id = ?2 AND to_agent_id = ?3"
        };
        let changed = self
            .conn
            .prepare_cached(sql)?
            .execute(params![id, self.session, agent])?;
        if changed == 0 {
            return Err(MailError::MessageNotFound(id));
        }
        self.after_write();
        Ok(())
    }

    /// Unread live mail in the agent's inbox.
    pub fn unread_count(&self, agent: &str) -> Result<u64, MailError> {
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT COUNT(*) FROM mail WHERE session_id = ?1 AND to_agent_id = ?2 AND archived = 0 AND read = 0",
            )?
            .query_row(params![self.session, agent], |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The "you have mail" line for a harness to inject, at most once until
    /// the agent checks its inbox: `[Notification: You have N unread
    /// messages in your inbox]` ("message" for one) when the agent has
    /// unread mail and no notification is pending; the flag is then set.
    pub fn take_notification(&self, agent: &str) -> Result<Option<String>, MailError> {
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let pending: Option<bool> = tx
            .prepare_cached("SELECT mail_notification_pending FROM agents WHERE session_id = ?1 AND agent_id = ?2")?
            .query_row(params![self.session, agent], |r| r.get(0))
            .optional()?;
        let Some(pending) = pending else {
            return Err(MailError::AgentNotFound(agent.to_owned()));
        };
        if pending {
            return Ok(None);
        }
        let unread: i64 = tx
            .prepare_cached(
                "SELECT COUNT(*) FROM mail WHERE session_id = ?1 AND to_agent_id = ?2 AND archived = 0 AND read = 0",
            )?
            .query_row(params![self.session, agent], |r| r.get(0))?;
        if unread == 0 {
            return Ok(None);
        }
        tx.prepare_cached("UPDATE agents SET mail_notification_pending = 1 WHERE session_id = ?1 AND agent_id = ?2")?
            .execute(params![self.session, agent])?;
        tx.commit()?;
        let noun = if unread == 1 { "message" } else { "messages" };
        Ok(Some(format!(
            "[Notification: You have {unread} unread {noun} in your inbox]"
        )))
    }

    /// Whether a notification is pending for the agent.
    pub fn notification_pending(&self, agent: &str) -> Result<bool, MailError> {
        let pending: Option<bool> = self
            .conn
            .prepare_cached("SELECT mail_notification_pending FROM agents WHERE session_id = ?1 AND agent_id = ?2")?
            .query_row(params![self.session, agent], |r| r.get(0))
            .optional()?;
        pending.ok_or_else(|| MailError::AgentNotFound(agent.to_owned()))
    }

    /// Clears the agent's notification flag (it checked its inbox). Writes
    /// only when the flag is set, so a plain inbox listing takes no write
    /// lock.
    pub fn clear_notification(&self, agent: &str) -> Result<(), MailError> {
        if self.notification_pending(agent).unwrap_or(false) {
            self.conn
                .prepare_cached(
                    "UPDATE agents SET mail_notification_pending = 0 WHERE session_id = ?1 AND agent_id = ?2",
                )?
                .execute(params![self.session, agent])?;
        }
        Ok(())
    }

    /// Copies the write-ahead log into the database and empties it. Normal
    /// use never needs this (writers checkpoint every 4 MB of log); after a
    /// bulk load in one huge transaction it keeps readers from searching a
    /// log as large as the data.
    pub fn checkpoint(&self) -> Result<(), MailError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// Runs `PRAGMA integrity_check`; `ok` when the file is sound.
    pub fn integrity_check(&self) -> Result<String, MailError> {
        Ok(self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }

    /// The raw connection, for bulk loading in benchmarks and tests.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("sub/dir/ikigai.db"), "s").unwrap();
        for a in ["0/", "1/", "2/"] {
            store.register_agent(a).unwrap();
        }
        (dir, store)
    }

    #[test]
    fn agent_ids() {
        assert!(validate_agent_id("1/0").is_ok());
        assert!(validate_agent_id("").is_err());
        assert!(validate_agent_id("a b").is_err());
        assert!(validate_agent_id("a\u{7}").is_err());
        assert!(validate_agent_id(&"x".repeat(65)).is_err());
        let (_d, s) = store();
        assert!(!s.register_agent("0/").unwrap());
        assert_eq!(s.agents().unwrap(), vec!["0/", "1/", "2/"]);
    }

    #[test]
    fn inbox_order_and_counts() {
        let (_d, s) = store();
        let a = s.send("1/", "0/", NewMessage::text("first")).unwrap();
        let b = s.send("2/", "0/", NewMessage::text("second")).unwrap();
        let c = s.send("1/", "0/", NewMessage::text("third")).unwrap();
        s.read("0/", b.id, true).unwrap();
        let inbox = s.inbox("0/", &InboxFilter::default()).unwrap();
        let ids: Vec<i64> = inbox.messages.iter().map(|m| m.id).collect();
        assert_eq!(ids, vec![c.id, a.id, b.id]);
        assert_eq!(inbox.unread_count, 2);
        let limited = s
            .inbox(
                "0/",
                &InboxFilter {
                    limit: Some(1),
                    ..InboxFilter::default()
                },
            )
            .unwrap();
        assert_eq!((limited.messages.len(), limited.truncated), (1, true));
    }

    #[test]
    fn errors() {
        let (_d, s) = store();
        assert!(
            matches!(s.send("0/", "9/", NewMessage::text("x")), Err(MailError::AgentNotFound(a)) if a == "9/")
        );
        assert!(matches!(
            s.send("0/", "1/", NewMessage::text("  \n")),
            Err(MailError::EmptyBody)
        ));
        let big = "x".repeat(MAX_BODY_BYTES + 1);
        assert!(matches!(
            s.send("0/", "1/", NewMessage::text(big)),
            Err(MailError::BodyTooLarge { .. })
        ));
        let m = s.send("0/", "1/", NewMessage::text("for 1")).unwrap();
        assert!(matches!(
            s.read("2/", m.id, true),
            Err(MailError::MessageNotFound(_))
        ));
    }

    #[test]
    fn threads_and_notifications() {
        let (_d, s) = store();
        let q = s.send("0/", "1/", NewMessage::text("question")).unwrap();
        assert_eq!(q.thread_id, q.id);
        let r = s
            .send(
                "1/",
                "0/",
                NewMessage {
                    in_reply_to: Some(q.id),
                    ..NewMessage::text("answer")
                },
            )
            .unwrap();
        assert_eq!(r.thread_id, q.id);
        assert!(matches!(
            s.send(
                "2/",
                "0/",
                NewMessage {
                    in_reply_to: Some(q.id),
                    ..NewMessage::text("x")
                }
            ),
            Err(MailError::MessageNotFound(_))
        ));
        assert_eq!(
            s.take_notification("0/").unwrap().as_deref(),
            Some("[Notification: You have 1 unread message in your inbox]")
        );
        assert_eq!(s.take_notification("0/").unwrap(), None);
        s.inbox("0/", &InboxFilter::default()).unwrap();
        assert!(!s.notification_pending("0/").unwrap());
        assert!(s.take_notification("0/").unwrap().is_some());
    }
}
