/** opencode ({@code opencode run --format json}). */
package org.agentworkspace.providers.opencode;
