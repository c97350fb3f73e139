/** Accounts, password hashing, API keys, stream tickets and login throttling. */
package org.agentworkspace.core.auth;
