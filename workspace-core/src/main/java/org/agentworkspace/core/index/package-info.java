/**
 * The conversation history index: every provider's sessions under the history homes, read once through the
 * {@link org.agentworkspace.core.history history readers} into the store and kept current by a file watcher, so
 * project lists, session lists, message pages and full-text search are answered from the store. See docs/history.md.
 */
package org.agentworkspace.core.index;
