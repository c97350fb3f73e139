/**
 * Public records, the closed error family and the scope vocabulary shared by every Agent Workspace module.
 * Nothing here depends on anything outside {@code java.base}.
 */
package org.agentworkspace.api;
