/**
 * Records of the provider-neutral conversation history: sessions read from each coding-agent CLI's own files, their
 * messages in one shape whatever the provider, and tail-first pages of them.
 */
package org.agentworkspace.api.history;
