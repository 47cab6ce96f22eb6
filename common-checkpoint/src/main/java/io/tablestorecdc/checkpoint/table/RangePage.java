package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One GetRange answer.
 *
 * @param rows the rows, in key order
 * @param nextStart where the range continues when it holds more rows
 */
@Internal
public record RangePage(List<Row> rows, Optional<PrimaryKey> nextStart) {

    public RangePage {
        rows = List.copyOf(rows);
        Objects.requireNonNull(nextStart, "nextStart");
    }
}
