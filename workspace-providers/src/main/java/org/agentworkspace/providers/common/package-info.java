/** What the adapters share: the child environment, argv checks, JSON-lines parsing and the Claude-shaped stream. */
package org.agentworkspace.providers.common;
