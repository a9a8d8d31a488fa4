"""Result plumbing shared by every audit (issue 33 item 2): the typed blocks of result.json
(:mod:`blocks`), the result every audit returns (:mod:`result`), the config fields' validators
(:mod:`config_fields`) and the one loader that turns a saved result into typed objects
(:mod:`loaded`). It sits below the games, attacks and defences that fill it."""
