/**
 * The source options both engines share, declared once: their keys, defaults and descriptions
 * ({@link io.tablestorecdc.checkpoint.settings.SourceOption}), how a value is parsed and what a bad
 * one is told ({@link io.tablestorecdc.checkpoint.settings.OptionValues}), and the validated result
 * ({@link io.tablestorecdc.checkpoint.settings.SourceSettings}).
 *
 * <p>Spark's {@code TablestoreSourceOptions} and Flink's {@code TablestoreCdcOptions} only map
 * these onto their own option APIs and add the options that exist in one engine alone, so a key, a
 * default or an error message cannot drift apart between the engines. Key strings are public
 * contracts: users write them in {@code .option(...)} calls and {@code WITH} clauses.
 */
package io.tablestorecdc.checkpoint.settings;
