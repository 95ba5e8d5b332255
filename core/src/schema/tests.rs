//! Unit tests for `schema`: the flat subset, defaults, and answer validation.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::*;

/// Parses with the strict parser so numbers keep their lexical text (`30.0`).
fn j(text: &str) -> Value {
    json::parse(text.as_bytes(), 1 << 20).unwrap()
}

fn schema_err(schema: &Value) -> String {
    let e = validate_form_schema(schema).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Schema);
    e.message().to_owned()
}

fn root(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn prop_err(prop: Value) -> String {
    schema_err(&root(json!({ "p": prop })))
}

fn prop_ok(prop: Value) {
    let s = root(json!({ "p": prop }));
    validate_form_schema(&s).unwrap_or_else(|e| unreachable!("{s}: {e}"));
}

/// Whether `value` is accepted for property `p` of the given property schema.
fn accepts(prop: &Value, value: &str) -> bool {
    let s = root(json!({ "p": prop }));
    validate_form_schema(&s).unwrap();
    validate_content(&s, &j(&format!(r#"{{"p":{value}}}"#))).is_ok()
}

/// EX/ElicitRequestFormParams/elicit-multiple-fields.json.
fn contact_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "age": {"type": "number", "minimum": 18, "description": "Your age"}
        },
        "required": ["name", "email"]
    })
}

fn titled_colors() -> Value {
    json!([{"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}, {"const": "#0000FF", "title": "Blue"}])
}

#[test]
fn spec_examples_are_valid() {
    validate_form_schema(&contact_schema()).unwrap();
    for prop in [
        json!({"type":"string","title":"Display Name","description":"Description text","minLength":3,"maxLength":50,"format":"email","default":"user@example.com"}),
        json!({"type":"number","title":"Display Name","description":"Description text","minimum":0,"maximum":100,"default":50}),
        json!({"type":"boolean","title":"Display Name","description":"Description text","default":false}),
        json!({"type":"string","title":"Color Selection","description":"Choose your favorite color","enum":["Red","Green","Blue"],"default":"Red"}),
        json!({"type":"string","title":"Color","oneOf": titled_colors(),"default":"#FF0000"}),
        json!({"type":"array","title":"Colors","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green","Blue"]},"default":["Red","Green"]}),
        json!({"type":"array","title":"Colors","minItems":1,"maxItems":2,"items":{"anyOf": titled_colors()},"default":["#FF0000","#00FF00"]}),
        json!({"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"b"}),
        json!({"type":"integer","minimum":1,"maximum":1,"default":1.0}),
        json!({"type":"string","minLength":0,"maxLength":0}),
    ] {
        prop_ok(prop);
    }
    validate_form_schema(&json!({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{},"required":[]})).unwrap();
}

#[test]
fn root_rules() {
    assert!(schema_err(&json!([])).starts_with("schema:"));
    assert!(schema_err(&json!({"properties": {}})).starts_with("type:"));
    assert!(schema_err(&json!({"type": "array", "properties": {}})).starts_with("type:"));
    assert!(schema_err(&json!({"type": "object"})).starts_with("properties:"));
    assert!(schema_err(&json!({"type": "object", "properties": []})).starts_with("properties:"));
    assert!(
        schema_err(&json!({"type":"object","properties":{},"additionalProperties":false}))
            .starts_with("additionalProperties:")
    );
    assert!(schema_err(&json!({"type":"object","properties":{},"title":"t"})).starts_with("title:"));
    assert!(schema_err(&json!({"type":"object","properties":{},"$schema":1})).starts_with("$schema:"));
    // An unsupported dialect is refused; 2020-12 with or without '#'.
    assert!(
        schema_err(
            &json!({"type":"object","properties":{},"$schema":"http://json-schema.org/draft-07/schema#"})
        )
        .starts_with("$schema: unsupported dialect")
    );
    validate_form_schema(
        &json!({"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object","properties":{}}),
    )
    .unwrap();
    assert!(
        schema_err(&json!({"type":"object","properties":{"":{"type":"string"}}})).starts_with("properties:")
    );
    // Vector 84: a required name without a property.
    let s = json!({"type":"object","properties":{"a":{"type":"string"}},"required":["zip"]});
    assert!(schema_err(&s).starts_with("required:"), "{}", schema_err(&s));
    let s = json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]});
    assert!(schema_err(&s).starts_with("required[1]:"));
    let s = json!({"type":"object","properties":{"a":{"type":"string"}},"required":[1]});
    assert!(schema_err(&s).starts_with("required[0]:"));
    let s = json!({"type":"object","properties":{"a":{"type":"string"}},"required":"a"});
    assert!(schema_err(&s).starts_with("required:"));
}

#[test]
fn only_the_flat_subset() {
    // Vector 81: nested object. Vector 82: arrays other than enums.
    assert!(prop_err(json!({"type":"object","properties":{}})).starts_with("properties.p.type:"));
    assert!(
        prop_err(json!({"type":"array","items":{"type":"number"}})).starts_with("properties.p.items.type:")
    );
    assert!(prop_err(json!({"type":"array"})).starts_with("properties.p.items:"));
    assert!(
        prop_err(json!({"type":"array","items":{"type":"string"}})).starts_with("properties.p.items.enum:")
    );
    assert!(prop_err(json!({"type":"array","items":[]})).starts_with("properties.p.items:"));
    assert!(prop_err(json!({"type":"array","items":{"enum":["a"]}})).starts_with("properties.p.items:"));
    // Vector 86: titled multi-select spelled with oneOf is refused (strict).
    assert!(
        prop_err(json!({"type":"array","items":{"oneOf": titled_colors()}}))
            .starts_with("properties.p.items.oneOf:")
    );
    assert!(
        prop_err(json!({"type":"array","items":{"anyOf": titled_colors(),"type":"string"}}))
            .starts_with("properties.p.items.type:")
    );
    // Vector 83 and friends: keywords outside the allowlist of each variant.
    for (prop, path) in [
        (json!({"type":"string","format":"password"}), "properties.p.format:"),
        (json!({"type":"string","pattern":"^a$"}), "properties.p.pattern:"),
        (json!({"type":"string","writeOnly":true}), "properties.p.writeOnly:"),
        (json!({"$ref":"#/x","type":"string"}), "properties.p.$ref:"),
        (json!({"type":"number","exclusiveMinimum":1}), "properties.p.exclusiveMinimum:"),
        (json!({"type":"number","minLength":1}), "properties.p.minLength:"),
        (json!({"type":"boolean","enum":[true]}), "properties.p.enum:"),
        (json!({"type":"string","enum":["a"],"minLength":1}), "properties.p.minLength:"),
        (
            json!({"type":"string","oneOf":titled_colors(),"enumNames":["x","y","z"]}),
            "properties.p.enumNames:",
        ),
        (json!({"type":"string","enum":["a"],"oneOf":titled_colors()}), "properties.p:"),
        (
            json!({"type":"array","items":{"type":"string","enum":["a"]},"uniqueItems":1}),
            "properties.p.uniqueItems:",
        ),
        (
            json!({"type":"array","items":{"type":"string","enum":["a"],"title":"t"}}),
            "properties.p.items.title:",
        ),
        (
            json!({"type":"string","oneOf":[{"const":"a","title":"A","description":"d"}]}),
            "properties.p.oneOf[0].description:",
        ),
        (json!({"type":["string","null"]}), "properties.p.type:"),
        (json!({"type":"null"}), "properties.p.type:"),
        (json!({"title":"no type"}), "properties.p.type:"),
        (json!("string"), "properties.p:"),
        (json!({"type":"string","title":5}), "properties.p.title:"),
        (json!({"type":"string","description":null}), "properties.p.description:"),
        (json!({"type":"string","format":5}), "properties.p.format:"),
    ] {
        let msg = prop_err(prop.clone());
        assert!(msg.starts_with(path), "{prop}: {msg}");
    }
}

#[test]
fn bounds_and_options_are_well_formed() {
    // Vector 85: min > max.
    assert!(prop_err(json!({"type":"number","minimum":10,"maximum":1})).starts_with("properties.p.minimum:"));
    assert!(
        prop_err(json!({"type":"string","minLength":5,"maxLength":4})).starts_with("properties.p.minLength:")
    );
    assert!(
        prop_err(json!({"type":"array","items":{"type":"string","enum":["a"]},"minItems":2,"maxItems":1}))
            .starts_with("properties.p.minItems:")
    );
    for bad in [json!(-1), json!(1.5), json!("3"), json!(null)] {
        assert!(prop_err(json!({"type":"string","minLength":bad})).starts_with("properties.p.minLength:"));
        assert!(
            prop_err(json!({"type":"array","items":{"type":"string","enum":["a"]},"maxItems":bad}))
                .starts_with("properties.p.maxItems:")
        );
    }
    prop_ok(j(r#"{"type":"string","minLength":3.0}"#));
    assert!(prop_err(json!({"type":"number","minimum":"1"})).starts_with("properties.p.minimum:"));
    assert!(prop_err(j(r#"{"type":"number","maximum":1e400}"#)).starts_with("properties.p.maximum:"));
    // Enum options: non-empty, unique strings; enumNames of the same length.
    assert!(prop_err(json!({"type":"string","enum":[]})).starts_with("properties.p.enum:"));
    assert!(prop_err(json!({"type":"string","enum":["A","A"]})).starts_with("properties.p.enum[1]:"));
    assert!(prop_err(json!({"type":"string","enum":["A",1]})).starts_with("properties.p.enum[1]:"));
    assert!(prop_err(json!({"type":"string","enum":"A"})).starts_with("properties.p.enum:"));
    assert!(
        prop_err(json!({"type":"string","enum":["A","B"],"enumNames":["a"]}))
            .starts_with("properties.p.enumNames:")
    );
    assert!(
        prop_err(json!({"type":"string","enum":["A"],"enumNames":[1]}))
            .starts_with("properties.p.enumNames[0]:")
    );
    assert!(prop_err(json!({"type":"string","oneOf":[]})).starts_with("properties.p.oneOf:"));
    assert!(
        prop_err(json!({"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"a","title":"B"}]}))
            .starts_with("properties.p.oneOf[1].const:")
    );
    assert!(
        prop_err(json!({"type":"string","oneOf":[{"const":"a"}]}))
            .starts_with("properties.p.oneOf[0].title:")
    );
    assert!(
        prop_err(json!({"type":"string","oneOf":[{"const":1,"title":"A"}]}))
            .starts_with("properties.p.oneOf[0].const:")
    );
    assert!(prop_err(json!({"type":"string","oneOf":["a"]})).starts_with("properties.p.oneOf[0]:"));
    assert!(
        prop_err(json!({"type":"array","items":{"type":"string","enum":["a","a"]}}))
            .starts_with("properties.p.items.enum[1]:")
    );
    assert!(prop_err(json!({"type":"array","items":{"anyOf":[]}})).starts_with("properties.p.items.anyOf:"));
}

#[test]
fn defaults_must_satisfy_their_own_schema() {
    // Vector 85.
    for (prop, ok) in [
        (json!({"type":"string","default":5}), false),
        (json!({"type":"string","maxLength":2,"default":"abc"}), false),
        (json!({"type":"string","minLength":2,"default":"a"}), false),
        (json!({"type":"string","format":"date","default":"2023-02-29"}), false),
        (json!({"type":"string","format":"date","default":"2024-02-29"}), true),
        (json!({"type":"number","minimum":0,"default":-1}), false),
        (json!({"type":"number","maximum":10,"default":10.5}), false),
        (json!({"type":"number","default":"5"}), false),
        (json!({"type":"integer","default":1.5}), false),
        (json!({"type":"number","default":1.5}), true),
        (json!({"type":"boolean","default":"false"}), false),
        (json!({"type":"string","enum":["A","B"],"default":"C"}), false),
        (json!({"type":"string","oneOf":titled_colors(),"default":"Red"}), false),
        (json!({"type":"array","items":{"type":"string","enum":["A","B"]},"default":["A","Z"]}), false),
        (json!({"type":"array","items":{"type":"string","enum":["A","B"]},"default":["A","A"]}), true),
        (
            json!({"type":"array","uniqueItems":true,"items":{"type":"string","enum":["A","B"]},"default":["A","A"]}),
            false,
        ),
        (json!({"type":"array","items":{"type":"string","enum":["A","B"]},"default":"A"}), false),
        (json!({"type":"array","items":{"type":"string","enum":["A","B"]},"minItems":1,"default":[]}), false),
        (json!({"type":"array","items":{"type":"string","enum":["A","B"]},"default":[]}), true),
        (
            json!({"type":"array","items":{"anyOf":titled_colors()},"maxItems":1,"default":["#FF0000","#00FF00"]}),
            false,
        ),
    ] {
        let s = root(json!({ "p": prop }));
        match validate_form_schema(&s) {
            Ok(()) => assert!(ok, "{prop} should be refused"),
            Err(e) => {
                assert!(!ok, "{prop}: {e}");
                assert!(e.message().starts_with("properties.p.default:"), "{e}");
            }
        }
    }
}

#[test]
fn contact_form_content() {
    // Vectors 64-68 and 71.
    let s = contact_schema();
    let ok = validate_content(&s, &j(r#"{"name":"Monalisa Octocat","email":"octocat@github.com","age":30}"#))
        .unwrap();
    assert_eq!(Value::Object(ok), json!({"name":"Monalisa Octocat","email":"octocat@github.com","age":30}));
    validate_content(&s, &j(r#"{"name":"M","email":"octocat@github.com","age":30.5}"#)).unwrap();
    assert_eq!(
        validate_content(&s, &j(r#"{"name":"M","email":"o@g.com","age":17}"#)).unwrap_err(),
        "age: below minimum 18"
    );
    assert_eq!(
        validate_content(&s, &j(r#"{"name":"M","email":"o@g.com","age":"30"}"#)).unwrap_err(),
        "age: expected a number"
    );
    assert_eq!(
        validate_content(&s, &j(r#"{"name":"M"}"#)).unwrap_err(),
        "email: required property is missing"
    );
    assert_eq!(
        validate_content(&s, &j(r#"{"name":"M","email":"not-an-email"}"#)).unwrap_err(),
        "email: not a valid email"
    );
    assert_eq!(
        validate_content(&s, &j(r#"{"name":null,"email":"o@g.com"}"#)).unwrap_err(),
        "name: expected a string"
    );
    // Optional fields may be absent; unknown fields are dropped.
    let out = validate_content(&s, &j(r#"{"name":"M","email":"o@g.com","nickname":"x"}"#)).unwrap();
    assert_eq!(Value::Object(out), json!({"name":"M","email":"o@g.com"}));
    for bad in ["[]", "null", "\"x\""] {
        assert_eq!(validate_content(&s, &j(bad)).unwrap_err(), "content: must be an object");
    }
    // An invalid schema is reported, not trusted.
    assert!(
        validate_content(&json!({"type":"object"}), &json!({})).unwrap_err().starts_with("requestedSchema:")
    );
}

#[test]
fn numbers() {
    // Vector 72: integer is judged by value.
    let int = json!({"type":"integer"});
    for (v, ok) in [
        ("30", true),
        ("30.0", true),
        ("3e1", true),
        ("30.5", false),
        ("-0", true),
        ("\"30\"", false),
        ("1e400", false),
    ] {
        assert_eq!(accepts(&int, v), ok, "integer {v}");
    }
    let num = json!({"type":"number","minimum":-1.5,"maximum":100});
    for (v, ok) in [
        ("-1.5", true),
        ("100", true),
        ("100.0", true),
        ("1e2", true),
        ("100.0000000000000001", false),
        ("-1.50000000000000001", false),
        ("0", true),
        ("true", false),
        ("null", false),
    ] {
        assert_eq!(accepts(&num, v), ok, "number {v}");
    }
}

#[test]
fn string_lengths_count_code_points() {
    // Vector 73.
    let one = json!({"type":"string","maxLength":1});
    assert!(accepts(&one, "\"😀\""));
    assert!(accepts(&one, "\"\\ud83d\\ude00\""));
    assert!(!accepts(&one, "\"e\\u0301\""));
    assert!(accepts(&one, "\"\""));
    let three = json!({"type":"string","minLength":3});
    assert!(!accepts(&three, "\"ab\""));
    assert!(accepts(&three, "\"a😀b\""));
    assert!(!accepts(&three, "3"));
}

#[test]
fn formats_are_asserted() {
    // Vector 74.
    let date = json!({"type":"string","format":"date"});
    assert!(accepts(&date, r#""2024-02-29""#));
    assert!(!accepts(&date, r#""2023-02-29""#));
    assert!(!accepts(&date, r#""2024-13-01""#));
    let dt = json!({"type":"string","format":"date-time"});
    assert!(accepts(&dt, r#""2024-01-01T00:00:00Z""#));
    assert!(!accepts(&dt, r#""2024-01-01""#));
    let uri = json!({"type":"string","format":"uri"});
    assert!(accepts(&uri, r#""https://a.b/c""#));
    assert!(!accepts(&uri, r#""a b""#));
    let email = json!({"type":"string","format":"email"});
    assert!(accepts(&email, r#""octocat@github.com""#));
    assert!(!accepts(&email, r#""octocat@""#));
}

#[test]
fn booleans_and_single_selects() {
    // Vectors 75-77.
    let b = json!({"type":"boolean"});
    assert!(accepts(&b, "true") && accepts(&b, "false"));
    assert!(!accepts(&b, "\"true\"") && !accepts(&b, "1") && !accepts(&b, "null"));
    let untitled = json!({"type":"string","enum":["Red","Green","Blue"]});
    assert!(accepts(&untitled, "\"Red\""));
    assert!(!accepts(&untitled, "\"red\"") && !accepts(&untitled, "[\"Red\"]"));
    let legacy = json!({"type":"string","enum":["r","g"],"enumNames":["Red","Green"]});
    assert!(accepts(&legacy, "\"r\""));
    assert!(!accepts(&legacy, "\"Red\""));
    let titled = json!({"type":"string","oneOf":titled_colors()});
    assert!(accepts(&titled, "\"#00FF00\""));
    assert!(!accepts(&titled, "\"Green\""));
}

#[test]
fn multi_selects() {
    // Vectors 78-79.
    let untitled = json!({"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green","Blue"]}});
    assert!(accepts(&untitled, r#"["Red"]"#));
    assert!(accepts(&untitled, r#"["Blue","Red"]"#));
    for bad in [r#"[]"#, r#"["Red","Green","Blue"]"#, r#"["Red","Purple"]"#, r#""Red""#, r#"["Red",1]"#] {
        assert!(!accepts(&untitled, bad), "{bad}");
    }
    // Repeats are refused only when the schema says uniqueItems.
    assert!(accepts(&untitled, r#"["Red","Red"]"#));
    let unique = json!({"type":"array","uniqueItems":true,"items":{"type":"string","enum":["Red","Green"]}});
    assert!(!accepts(&unique, r#"["Red","Red"]"#));
    assert!(accepts(&unique, r#"["Red","Green"]"#));
    let titled = json!({"type":"array","items":{"anyOf":titled_colors()}});
    assert!(accepts(&titled, r##"["#FF0000","#00FF00"]"##));
    assert!(accepts(&titled, "[]"));
    assert!(!accepts(&titled, r#"["Red"]"#));
}

#[test]
fn reasons_name_the_property_and_rule() {
    let s = root(json!({
        "n": {"type":"string","maxLength":2},
        "m": {"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":1}
    }));
    assert_eq!(validate_content(&s, &json!({"n":"abc"})).unwrap_err(), "n: longer than maxLength 2");
    assert_eq!(
        validate_content(&s, &json!({"m":["a","b"]})).unwrap_err(),
        "m: more than maxItems 1 selections"
    );
    assert_eq!(
        validate_content(&s, &json!({"m":["a","z"]})).unwrap_err(),
        "m: item 1: not one of the allowed values"
    );
    let s = root(json!({"x": {"type":"number","maximum":5}}));
    assert_eq!(validate_content(&s, &json!({"x": 6})).unwrap_err(), "x: above maximum 5");
}

proptest::proptest! {
    /// The duplicate check scans short lists and hashes long
    /// ones; either way the first entry equal to an earlier one is named.
    #[test]
    fn the_first_repeated_enum_value_is_named(values in proptest::collection::vec(0u8..30, 1..40)) {
        let first = (1..values.len()).find(|&i| values[..i].contains(&values[i]));
        let names: Vec<String> = values.iter().map(|v| format!("v{v}")).collect();
        let schema = root(json!({"c": {"type": "string", "enum": names}}));
        match first {
            Some(i) => proptest::prop_assert_eq!(
                schema_err(&schema),
                format!("properties.c.enum[{i}]: duplicate value")
            ),
            None => proptest::prop_assert!(validate_form_schema(&schema).is_ok()),
        }
    }
}
