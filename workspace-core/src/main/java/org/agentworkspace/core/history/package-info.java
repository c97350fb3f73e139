/**
 * Streaming readers of every coding-agent CLI's own history files (claude, codex, gemini, qwen, cursor, opencode):
 * discovery, cheap summaries, tail-first message pages and byte-offset resumable reads for an index.
 */
package org.agentworkspace.core.history;
