/** {@code /ws}: the chat WebSocket (turns, subscriptions to runs and sessions, permission answers). See docs/live-channels.md. */
package org.agentworkspace.server.chat;
