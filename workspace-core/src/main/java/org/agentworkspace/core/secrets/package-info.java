/**
 * Secrets at rest: {@link org.agentworkspace.core.secrets.SecretBox} (AES-256-GCM under the data directory's
 * {@code secret.key}), per-user sealed values ({@link org.agentworkspace.core.secrets.UserSecrets}) and the git
 * token used for push and pull ({@link org.agentworkspace.core.secrets.GitTokens}).
 */
package org.agentworkspace.core.secrets;
