/**
 * The {@code tablestore} sink: {@link io.tablestorecdc.flink.sink.TablestoreSink} (Sink V2) writes
 * row changes to a Tablestore table through the core's buffered writer, flushing on every
 * checkpoint (at-least-once writes, which converge to an exactly-once result by key because every
 * write is idempotent), when the buffer is full, and after the configured interval.
 */
package io.tablestorecdc.flink.sink;
