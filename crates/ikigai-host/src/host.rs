//! [`Host`]: the registry plus safe execution of calls.

use crate::dirs::{Source, ToolDirs};
use crate::discovery::{self, Warning};
use crate::envelope::{self, seconds};
use crate::process::{self, Cancel, Limits, Spawn};
use crate::registry::{Registry, ToolEntry};
use crate::schedule;
use ikigai_protocol::runner::{self, RunFn, ToolSpec};
use ikigai_protocol::{Envelope, ErrorCode, Failure, ToolContext};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// How a host finds and runs tools.
#[derive(Debug, Clone)]
pub struct HostConfig {
    pub dirs: ToolDirs,
    /// Bounds on every call (the timeout can be changed per call).
    pub limits: Limits,
    /// Limit on each `--schema` run during discovery.
    pub schema_timeout: Duration,
    /// Most calls of one [`Host::call_many`] batch running at once.
    pub max_parallel: usize,
}

impl HostConfig {
    /// The standard directories for `cwd` and default limits: 30 s per
    /// call, 64 MiB of stdout, 2 s per `--schema`, 16 calls at once.
    pub fn standard(cwd: &std::path::Path) -> HostConfig {
        HostConfig {
            dirs: ToolDirs::standard(cwd),
            limits: Limits::default(),
            schema_timeout: Duration::from_secs(2),
            max_parallel: 16,
        }
    }
}

/// The identity and place one call runs with.
///
/// The `IKIGAI_*` fields become the tool's environment variables
/// (`IKIGAI_AGENT_ID`, `IKIGAI_SESSION_ID`, `IKIGAI_DB`,
/// `IKIGAI_STATE_DIR`); `env` adds any others. Everything else is inherited
/// from the host process.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub cwd: Option<PathBuf>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub db: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    /// Overrides the host's timeout for this call.
    pub timeout: Option<Duration>,
    pub env: Vec<(String, String)>,
    /// Fires to kill the call's process group.
    pub cancel: Option<Cancel>,
}

impl CallContext {
    /// The variables set for the tool, on top of the inherited environment.
    pub fn tool_env(&self) -> Vec<(String, String)> {
        let mut vars = Vec::new();
        if let Some(v) = &self.agent_id {
            vars.push(("IKIGAI_AGENT_ID".to_owned(), v.clone()));
        }
        if let Some(v) = &self.session_id {
            vars.push(("IKIGAI_SESSION_ID".to_owned(), v.clone()));
        }
        if let Some(v) = &self.db {
            vars.push(("IKIGAI_DB".to_owned(), v.to_string_lossy().into_owned()));
        }
        if let Some(v) = &self.state_dir {
            vars.push((
                "IKIGAI_STATE_DIR".to_owned(),
                v.to_string_lossy().into_owned(),
            ));
        }
        vars.extend(self.env.iter().cloned());
        vars
    }
}

/// A tool the host may run in-process through its library instead of
/// spawning its binary, with the same envelope, error and timeout
/// behaviour (see [`Host::add_builtin`]).
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub spec: &'static ToolSpec,
    pub run: RunFn,
}

/// One call of a batch.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    /// The arguments as the model produced them: a JSON string.
    pub arguments: String,
}

/// Discovers tools and runs calls. Cheap to clone; clones share the
/// registry.
#[derive(Debug, Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: HostConfig,
    registry: RwLock<Arc<Registry>>,
    builtins: RwLock<HashMap<String, Builtin>>,
}

impl Host {
    /// A host with an empty registry (see [`Host::rediscover`]).
    pub fn new(config: HostConfig) -> Host {
        Host {
            inner: Arc::new(Inner {
                config,
                registry: RwLock::new(Arc::new(Registry::default())),
                builtins: RwLock::new(HashMap::new()),
            }),
        }
    }

    /// A host with its tools discovered, and the warnings discovery gave.
    pub async fn discover(config: HostConfig) -> (Host, Vec<Warning>) {
        let host = Host::new(config);
        let warnings = host.rediscover().await;
        (host, warnings)
    }

    pub fn config(&self) -> &HostConfig {
        &self.inner.config
    }

    /// Runs discovery again and swaps the registry in; calls in flight keep
    /// the registry they started with.
    pub async fn rediscover(&self) -> Vec<Warning> {
        let config = &self.inner.config;
        let (registry, warnings) = discovery::discover(&config.dirs, config.schema_timeout).await;
        if let Ok(mut slot) = self.inner.registry.write() {
            *slot = Arc::new(registry);
        }
        warnings
    }

    pub fn registry(&self) -> Arc<Registry> {
        match self.inner.registry.read() {
            Ok(r) => Arc::clone(&r),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Lets the host run `name` in-process when the registry's `name` is
    /// the system directory's tool, i.e. the built-in has not been
    /// overridden by a user, project or caller tool. Saves a process spawn
    /// per call. The timeout still applies (the call is abandoned, not
    /// killed: only use this for tools that cannot hang), output is still
    /// capped, and a panic still becomes an error object.
    pub fn add_builtin(&self, name: &str, builtin: Builtin) {
        if let Ok(mut map) = self.inner.builtins.write() {
            map.insert(name.to_owned(), builtin);
        }
    }

    /// Runs one call. `arguments` must be a JSON object.
    pub async fn call(&self, name: &str, arguments: &str, ctx: &CallContext) -> Envelope {
        if let Err(failure) = check_arguments(name, arguments) {
            return Envelope::Failure(failure);
        }
        let Some(entry) = self.registry().get(name).cloned() else {
            return not_found(name);
        };
        self.call_entry(&entry, arguments, ctx).await
    }

    /// Runs one call of a tool found by precedence alone, without
    /// discovery (no `--schema` runs): what `ikigai call` does.
    pub async fn locate_and_call(
        &self,
        name: &str,
        arguments: &str,
        ctx: &CallContext,
    ) -> Envelope {
        if let Err(failure) = check_arguments(name, arguments) {
            return Envelope::Failure(failure);
        }
        let Some(candidate) = discovery::locate(&self.inner.config.dirs, name) else {
            return not_found(name);
        };
        self.spawn_call(name, candidate.path, arguments, ctx).await
    }

    async fn call_entry(&self, entry: &ToolEntry, arguments: &str, ctx: &CallContext) -> Envelope {
        if entry.source == Source::System {
            let builtin = self
                .inner
                .builtins
                .read()
                .ok()
                .and_then(|m| m.get(&entry.name).copied());
            if let Some(builtin) = builtin {
                return self
                    .builtin_call(&entry.name, builtin, arguments, ctx)
                    .await;
            }
        }
        self.spawn_call(&entry.name, entry.path.clone(), arguments, ctx)
            .await
    }

    async fn spawn_call(
        &self,
        name: &str,
        path: PathBuf,
        arguments: &str,
        ctx: &CallContext,
    ) -> Envelope {
        let mut limits = self.inner.config.limits;
        if let Some(timeout) = ctx.timeout {
            limits.timeout = timeout;
        }
        let spawn = Spawn {
            program: path,
            args: Vec::new(),
            cwd: ctx.cwd.clone(),
            env: ctx.tool_env(),
            stdin: arguments.as_bytes().to_vec(),
            limits,
        };
        match process::run(spawn, ctx.cancel.clone()).await {
            Ok(finished) => {
                envelope::from_finished(name, finished, limits.timeout, limits.stdout_cap)
            }
            Err(e) => Envelope::Failure(Failure::without_process(
                ErrorCode::SpawnFailed,
                format!("Tool '{name}' could not be started: {e}"),
            )),
        }
    }

    async fn builtin_call(
        &self,
        name: &str,
        builtin: Builtin,
        arguments: &str,
        ctx: &CallContext,
    ) -> Envelope {
        let limits = self.inner.config.limits;
        let timeout = ctx.timeout.unwrap_or(limits.timeout);
        let tool_ctx = ToolContext::new(ctx.cwd.clone(), ctx.tool_env().into_iter().collect());
        let input = arguments.as_bytes().to_vec();
        let task = tokio::task::spawn_blocking(move || {
            runner::execute(builtin.spec, builtin.run, &input, &tool_ctx)
        });
        let mut cancel = ctx.cancel.clone();
        let cancelled = async {
            match cancel.as_mut() {
                Some(c) => c.fired().await,
                None => std::future::pending().await,
            }
        };
        let outcome = tokio::select! {
            joined = tokio::time::timeout(timeout, task) => joined,
            () = cancelled => {
                return Envelope::Failure(Failure::without_process(ErrorCode::Cancelled, format!("Tool '{name}' call was cancelled")));
            }
        };
        match outcome {
            Err(_) => Envelope::Failure(Failure::without_process(
                ErrorCode::ToolTimeout,
                format!("Tool '{name}' timed out after {}", seconds(timeout)),
            )),
            Ok(Err(e)) => Envelope::Failure(Failure::without_process(
                ErrorCode::ToolCrashed,
                format!("Tool '{name}' crashed: {e}"),
            )),
            Ok(Ok(value)) => {
                let size = serde_json::to_vec(&value).map_or(usize::MAX, |v| v.len());
                if size > limits.stdout_cap {
                    return Envelope::Failure(Failure::without_process(
                        ErrorCode::OutputTooLarge,
                        format!(
                            "Tool '{name}' wrote more than {} bytes to stdout and was killed",
                            limits.stdout_cap
                        ),
                    ));
                }
                Envelope::Success(value)
            }
        }
    }

    /// Runs a batch of calls and returns their envelopes in call order.
    ///
    /// Independent calls run concurrently, at most
    /// [`HostConfig::max_parallel`] at once; a call that conflicts with an
    /// earlier one (the same file written, `bash`, an unknown tool: see
    /// [`schedule`]) waits for it to finish first.
    pub async fn call_many(&self, calls: Vec<ToolCall>, ctx: &CallContext) -> Vec<Envelope> {
        let cwd = ctx
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let accesses: Vec<schedule::Access> = calls
            .iter()
            .map(|c| {
                let args = serde_json::from_str(&c.arguments).unwrap_or(Value::Null);
                schedule::access(&c.name, &args, &cwd)
            })
            .collect();
        let permits = Arc::new(Semaphore::new(self.inner.config.max_parallel.max(1)));
        let mut done: Vec<watch::Receiver<bool>> = Vec::with_capacity(calls.len());
        let mut tasks = Vec::with_capacity(calls.len());
        for (i, call) in calls.into_iter().enumerate() {
            let waits: Vec<watch::Receiver<bool>> = (0..i)
                .filter(|&j| schedule::conflicts(&accesses[j], &accesses[i]))
                .map(|j| done[j].clone())
                .collect();
            let (tx, rx) = watch::channel(false);
            done.push(rx);
            let host = self.clone();
            let ctx = ctx.clone();
            let permits = Arc::clone(&permits);
            tasks.push(tokio::spawn(async move {
                for mut w in waits {
                    let _ = w.wait_for(|finished| *finished).await;
                }
                // Acquired only after the dependencies are done, so a
                // waiting call never holds a slot its dependency needs.
                let _permit = permits.acquire().await;
                let envelope = host.call(&call.name, &call.arguments, &ctx).await;
                let _ = tx.send(true);
                envelope
            }));
        }
        let mut results = Vec::with_capacity(tasks.len());
        for task in tasks {
            results.push(task.await.unwrap_or_else(|e| {
                Envelope::Failure(Failure::without_process(
                    ErrorCode::ToolCrashed,
                    format!("call task failed: {e}"),
                ))
            }));
        }
        results
    }
}

fn not_found(name: &str) -> Envelope {
    Envelope::Failure(Failure::without_process(
        ErrorCode::ToolNotFound,
        format!("Tool not found: {name}"),
    ))
}

fn check_arguments(name: &str, arguments: &str) -> Result<(), Failure> {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(_)) => Ok(()),
        Ok(_) => Err(Failure::without_process(
            ErrorCode::InvalidParams,
            format!("Invalid arguments for tool '{name}': expected a JSON object"),
        )),
        Err(e) => Err(Failure::without_process(
            ErrorCode::InvalidParams,
            format!("Invalid arguments for tool '{name}': {e}"),
        )),
    }
}
