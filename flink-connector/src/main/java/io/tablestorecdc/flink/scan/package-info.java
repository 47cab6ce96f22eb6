/**
 * A bounded scan of a Tablestore table as it is now (FLIP-27): the enumerator plans key ranges of
 * about a split size each (ComputeSplitsBySize, cut to the pushed-down key bounds) and hands them
 * out on request; readers read each range with paged GetRange and checkpoint the last key emitted.
 */
package io.tablestorecdc.flink.scan;
