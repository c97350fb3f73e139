/**
 * The run engine: spawns provider CLIs as process trees it owns (argv only, exact environment, timeouts, bounded
 * output, whole-tree kill), limits how many run at once, and keeps each run's append-only event log in the store,
 * which readers follow by sequence number. See docs/runs.md.
 */
package org.agentworkspace.core.runs;
