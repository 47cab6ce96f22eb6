package io.tablestorecdc.flink.scan;

import com.alicloud.openservices.tablestore.model.Row;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

/** Turns a row a scan read into the Flink row it emits. */
@Internal
@FunctionalInterface
public interface TableRowConverter extends Serializable {

    /**
     * @throws IllegalArgumentException when a cell does not fit its declared type
     */
    RowData convert(Row row);
}
