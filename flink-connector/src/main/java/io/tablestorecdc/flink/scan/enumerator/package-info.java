/** Plans a bounded table scan's splits and assigns them to readers on request. */
package io.tablestorecdc.flink.scan.enumerator;
