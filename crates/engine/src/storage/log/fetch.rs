//! Reads of old log entries for a lagging follower's appends, off the raft
//! thread (raft-rs's asynchronous fetch): raft asks for entries the
//! in-memory tail no longer holds, is told they are temporarily unavailable,
//! a thread of its own reads them from the log's files, and raft is called
//! back to ask again, when they are served from memory. Meanwhile the raft
//! thread goes on persisting, sending and committing for everyone else.

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use raft::eraftpb::Entry;
use raft::GetEntriesContext;

use super::{Engine, RaftLog};

/// Fetched batches kept at most (one per lagging follower is the need).
const KEEP: usize = 16;

/// What the raft thread is told when entries it asked for were fetched.
pub type Notify = Box<dyn Fn(GetEntriesContext) + Send + Sync>;

struct Job {
    low: u64,
    end: u64,
    max_size: u64,
    generation: u64,
}

#[derive(Default)]
struct Fetched {
    /// Reads under way, by first index, with the raft contexts waiting.
    waiting: HashMap<u64, Vec<GetEntriesContext>>,
    /// Reads done, by first index: the log's generation then, and the entries.
    done: HashMap<u64, (u64, Vec<Entry>)>,
}

/// The reader of old entries.
pub struct Fetcher {
    engine: Arc<Engine>,
    fetched: Arc<Mutex<Fetched>>,
    jobs: Mutex<Option<(mpsc::Sender<Job>, std::thread::JoinHandle<()>)>>,
    notify: Arc<OnceLock<Notify>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Fetcher {
    /// A fetcher reading from `engine`.
    pub fn new(engine: Arc<Engine>) -> Fetcher {
        Fetcher {
            engine,
            fetched: Arc::default(),
            jobs: Mutex::new(None),
            notify: Arc::new(OnceLock::new()),
        }
    }

    /// Sets what raft is told when a read is done (once, by the node).
    pub fn set_notify(&self, notify: Notify) {
        let _ = self.notify.set(notify);
    }

    /// Whether entries can be fetched in the background (the node listens).
    pub fn is_async(&self) -> bool {
        self.notify.get().is_some()
    }

    /// The entries fetched from `low` for the log's `generation`, if any;
    /// a batch read for another generation is dropped.
    pub fn take(&self, low: u64, generation: u64) -> Option<Vec<Entry>> {
        let mut f = lock(&self.fetched);
        match f.done.remove(&low) {
            Some((g, entries)) if g == generation => Some(entries),
            _ => None,
        }
    }

    /// Asks for the entries of `[low, end)` within `max_size` bytes; raft's
    /// `context` is handed back through the notification once they are read.
    pub fn request(
        &self,
        low: u64,
        end: u64,
        max_size: u64,
        generation: u64,
        context: GetEntriesContext,
    ) {
        {
            let mut f = lock(&self.fetched);
            if let Some(waiting) = f.waiting.get_mut(&low) {
                waiting.push(context);
                return;
            }
            f.waiting.insert(low, vec![context]);
        }
        let job = Job {
            low,
            end,
            max_size,
            generation,
        };
        let mut jobs = lock(&self.jobs);
        if jobs.is_none() {
            *jobs = self.spawn();
        }
        let sent = match jobs.as_ref() {
            Some((tx, _)) => tx.send(job).map_err(|e| e.0),
            None => Err(job),
        };
        if let Err(job) = sent {
            // No reader thread: raft asks again on its own (the next
            // heartbeat's answer); nobody is left waiting here.
            *jobs = None;
            lock(&self.fetched).waiting.remove(&job.low);
        }
    }

    fn spawn(&self) -> Option<(mpsc::Sender<Job>, std::thread::JoinHandle<()>)> {
        let (tx, rx) = mpsc::channel::<Job>();
        let engine = self.engine.clone();
        let fetched = self.fetched.clone();
        let notify = self.notify.clone();
        let handle = std::thread::Builder::new()
            .name("raft-log-fetch".into())
            .spawn(move || {
                for job in rx {
                    let read = RaftLog::read_entries(&engine, job.low, job.end, job.max_size);
                    let waiting = {
                        let mut f = lock(&fetched);
                        if let Ok(entries) = read {
                            if f.done.len() >= KEEP {
                                f.done.clear();
                            }
                            f.done.insert(job.low, (job.generation, entries));
                        }
                        f.waiting.remove(&job.low).unwrap_or_default()
                    };
                    // A failed read (compacted meanwhile) is not kept: raft,
                    // asking again, finds the entries gone and sends a snapshot.
                    if let Some(notify) = notify.get() {
                        for context in waiting {
                            notify(context);
                        }
                    }
                }
            })
            .ok()?;
        Some((tx, handle))
    }
}

impl Drop for Fetcher {
    /// Ends the reader thread (it holds the log open) before the log closes.
    fn drop(&mut self) {
        if let Some((tx, handle)) = lock(&self.jobs).take() {
            drop(tx);
            let _ = handle.join();
        }
    }
}
