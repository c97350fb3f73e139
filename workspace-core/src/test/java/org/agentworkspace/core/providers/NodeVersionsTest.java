package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeVersionsTest {
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "v20.20.2 ; >=22.0.0 ; false",
        "v22.23.3 ; >=22.0.0 ; true",
        "v20.20.2 ; >=16 ; true",
        "v20.20.2 ; >=20 ; true",
        "v18.0.0 ; >=18.0.0 ; true",
        "v17.9.9 ; >=18.0.0 ; false",
        "v20.1.0 ; ^18 || >=20 ; true",
        "v19.0.0 ; ^18 || >=20 ; false",
        "v18.5.0 ; ^18 || >=20 ; true",
        "v22.1.0 ; 22.x ; true",
        "v23.0.0 ; 22.x ; false",
        "v20.3.1 ; ~20.3 ; true",
        "v20.4.0 ; ~20.3 ; false",
        "v20.0.0 ; >=18 <21 ; true",
        "v21.0.0 ; >=18 <21 ; false",
        "v20.5.0 ; 18 - 20 ; true",
        "v21.0.0 ; 18 - 20 ; false",
        "v20.0.0 ; * ; true",
        "v20.0.0 ; '' ; true",
        "v20.0.0 ; >=20.0.0-beta ; true",
        "garbage ; >=20 ; false",
        "v20.0.0 ; this is no range ; true",
    })
    void rangesAsEnginesFieldsUseThem(String version, String range, boolean expected) {
        assertEquals(expected, NodeVersions.satisfies(version, range), version + " in " + range);
    }
}
