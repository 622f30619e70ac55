"""Controllers of the chapter view: containers around its panes that own a concern and its keys.

A controller is an ancestor of the panes, so its bindings work whichever pane has the focus. The screen hands
them what they need (attributes down); they tell the screen what happened or what they want through messages
(messages up): facts in the past tense, intents ending in ``Requested``.
"""
