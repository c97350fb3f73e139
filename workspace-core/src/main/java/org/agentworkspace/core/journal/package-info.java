/**
 * The event journal: one abstraction for every replayable job of the engine — a run's log, an install job, an update
 * job, an account's in-app notifications. A journal numbers its entries 1, 2, 3, … ({@link
 * org.agentworkspace.core.journal.EventJournal}); a reader ({@link org.agentworkspace.core.journal.JournalCursor})
 * gets every entry after a sequence number exactly once and in order, first what is kept, then what comes, and knows
 * when the journal has ended. {@link org.agentworkspace.core.journal.MemoryJournal} is the bounded in-memory journal
 * of jobs that live in memory (installs, updates); runs and notifications are journals over their store tables.
 * {@link org.agentworkspace.core.journal.LastEventId} is the one rule by which a stream's {@code Last-Event-ID}
 * picks where a reader starts. The server's one SSE follower streams any journal (docs/live-channels.md).
 */
package org.agentworkspace.core.journal;
