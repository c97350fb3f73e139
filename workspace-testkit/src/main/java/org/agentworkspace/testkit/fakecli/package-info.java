/**
 * Fake provider CLIs: POSIX {@code sh} scripts with the real binary names that replay streams recorded from the real
 * CLIs, for fast tests and for machines without the real CLIs. See {@link org.agentworkspace.testkit.fakecli.FakeClis}.
 */
package org.agentworkspace.testkit.fakecli;
