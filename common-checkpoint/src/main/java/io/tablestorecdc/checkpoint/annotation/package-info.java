/**
 * The stability annotations of the core's public types: {@link
 * io.tablestorecdc.checkpoint.annotation.PublicEvolving} for the types programs use, {@link
 * io.tablestorecdc.checkpoint.annotation.Internal} for the rest.
 */
package io.tablestorecdc.checkpoint.annotation;
