/**
 * The Flink CDC pipeline source {@code type: tablestore}: {@link
 * io.tablestorecdc.pipeline.TablestoreDataSourceFactory} (options, found through Flink CDC's
 * factory SPI), the data source over the project's Flink source of many tables, its metadata
 * accessor, and the change-to-event mapping with its three schema modes. See docs/pipeline.md.
 */
package io.tablestorecdc.pipeline;
