/**
 * The one place the engine starts operating-system processes ({@link org.agentworkspace.core.process.Spawner}):
 * agent runs, provider installs and probes, terminals and tunnel tools all go through it. Not exported; an
 * architecture test keeps {@code ProcessBuilder} and pty4j out of every other package.
 */
package org.agentworkspace.core.process;
