/** The relational store: Jdbi over SQLite (default) or PostgreSQL, with numbered migrations. */
package org.agentworkspace.core.store;
