/**
 * The administrator's production agent loop: the engine's background jobs ({@link
 * org.agentworkspace.core.loop.BackgroundJobs}), workspace checkpoints on private git refs ({@link
 * org.agentworkspace.core.loop.Checkpoints}), the review queue of unattended runs that changed files ({@link
 * org.agentworkspace.core.loop.ReviewQueue}) and the desktop release policy ({@link
 * org.agentworkspace.core.loop.ReleasePolicies}). See docs/agent-loop.md.
 */
package org.agentworkspace.core.loop;
