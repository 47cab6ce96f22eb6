package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.List;
import java.util.Optional;

/**
 * One page of a GetRange answer: the rows and, when the range holds more, the key to continue at.
 *
 * @param bytesRead the size of the rows the page scanned (see {@link CapacityUnits}), those a
 *     filter dropped included
 */
public record RangePage(List<Row> rows, Optional<PrimaryKey> nextStart, long bytesRead) {

    public RangePage {
        rows = List.copyOf(rows);
    }
}
