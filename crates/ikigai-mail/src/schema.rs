//! The database schema, versioned with `PRAGMA user_version`: migration N
//! brings a database from version N to N+1. Migrations run once, under
//! `BEGIN IMMEDIATE`, so two processes opening a new database at the same
//! time do not both apply them.

use crate::MailError;
use rusqlite::{Connection, TransactionBehavior};

pub const MIGRATIONS: &[&str] = &[
    // 1: agents and mail.
    "CREATE TABLE agents (
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        mail_notification_pending INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, agent_id)
    ) WITHOUT ROWID;
    CREATE TABLE mail (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        from_agent_id TEXT NOT NULL,
        to_agent_id TEXT NOT NULL,
        body TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        read INTEGER NOT NULL DEFAULT 0,
        archived INTEGER NOT NULL DEFAULT 0,
        subject TEXT,
        type TEXT,
        priority TEXT,
        tags TEXT,
        needs_response INTEGER NOT NULL DEFAULT 0,
        in_reply_to INTEGER,
        -- NULL for a message that starts a thread (its thread is its own id),
        -- so a send is one insert and no update.
        thread_id INTEGER
    );
    -- Serves the inbox: one agent's live mail, unread first, newest first.
    CREATE INDEX mail_inbox ON mail (session_id, to_agent_id, archived, read, timestamp DESC, id DESC);",
];

pub fn migrate(conn: &mut Connection) -> Result<(), MailError> {
    let supported = MIGRATIONS.len() as i64;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == supported {
        return Ok(());
    }
    if version > supported {
        return Err(MailError::SchemaTooNew {
            found: version,
            supported,
        });
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Another process may have migrated while we waited for the lock.
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    tx.commit()?;
    Ok(())
}
