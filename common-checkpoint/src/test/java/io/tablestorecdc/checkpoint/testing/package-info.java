/**
 * Fakes of the core's own interfaces that every module's tests share, and the generators of the
 * docs' option tables, published in the core's test jar (the emulator's test jar holds the checks
 * that need no core types).
 */
package io.tablestorecdc.checkpoint.testing;
