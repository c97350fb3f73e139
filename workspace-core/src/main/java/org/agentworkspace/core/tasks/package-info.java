/**
 * Automation tasks: a prompt for a provider in a project, run on a schedule (once, every N seconds, or a Unix cron
 * expression in a time zone) through the agent run engine, with pause, resume, update, cancel and delete.
 */
package org.agentworkspace.core.tasks;
