/**
 * How the consumers' parts end: {@link io.tablestorecdc.checkpoint.lifecycle.CloseSequence} runs
 * every step of a close even when one fails, and {@link
 * io.tablestorecdc.checkpoint.lifecycle.ClassPreload} loads what a close needs while the engine's
 * classloader still can.
 */
package io.tablestorecdc.checkpoint.lifecycle;
